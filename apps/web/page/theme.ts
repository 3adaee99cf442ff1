/** Light, dark, or the system's choice (the default), kept in this browser. */
const KEY = "plugboard-theme";
const ORDER = ["auto", "light", "dark"] as const;
type Theme = (typeof ORDER)[number];

/** Applies the kept theme and makes `toggle` cycle through auto → light → dark. */
export function setUpTheme(toggle: HTMLButtonElement): void {
  const kept = localStorage.getItem(KEY);
  let theme: Theme = ORDER.find((name) => name === kept) ?? "auto";
  apply(theme, toggle);
  toggle.addEventListener("click", () => {
    theme = ORDER[(ORDER.indexOf(theme) + 1) % ORDER.length] ?? "auto";
    localStorage.setItem(KEY, theme);
    apply(theme, toggle);
  });
}

function apply(theme: Theme, toggle: HTMLButtonElement): void {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  toggle.textContent = `Theme: ${theme}`;
}
