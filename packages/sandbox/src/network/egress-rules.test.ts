/** Host patterns of a narrowed `network` grant, and which addresses count as the machine's or its network's own. */
import { describe, expect, test } from "bun:test";
import { admission, localAddressKind, parsePattern, patternProblem } from "./egress-rules.ts";

const list = (...patterns: string[]) => patterns.map(parsePattern);
const admitted = (patterns: string[], host: string, port: number) => admission(list(...patterns), host, port);

describe("host patterns", () => {
  test("an exact name admits that name on any port, case and a trailing dot aside", () => {
    expect(admitted(["api.example.com"], "api.example.com", 443)).toMatchObject({ literal: true });
    expect(admitted(["api.example.com"], "API.Example.com.", 80)).toMatchObject({ literal: true });
    expect(admitted(["api.example.com"], "example.com", 443)).toBeUndefined();
    expect(admitted(["api.example.com"], "x.api.example.com", 443)).toBeUndefined();
    expect(admitted(["api.example.com"], "api.example.com.evil.net", 443)).toBeUndefined();
  });

  test("*.domain admits its subdomains, not the bare domain nor a name that merely ends like it", () => {
    expect(admitted(["*.github.com"], "api.github.com", 443)).toMatchObject({ literal: false });
    expect(admitted(["*.github.com"], "a.b.github.com", 443)).toMatchObject({ literal: false });
    expect(admitted(["*.github.com"], "github.com", 443)).toBeUndefined();
    expect(admitted(["*.github.com"], "evilgithub.com", 443)).toBeUndefined();
  });

  test(":PORT pins the port", () => {
    expect(admitted(["localhost:4873"], "localhost", 4873)).toMatchObject({ literal: true });
    expect(admitted(["localhost:4873"], "localhost", 4874)).toBeUndefined();
    expect(admitted(["*.example.com:443"], "a.example.com", 80)).toBeUndefined();
    expect(admitted(["[::1]:8080"], "[::1]", 8080)).toMatchObject({ literal: true });
    expect(admitted(["[::1]:8080"], "::1", 8080)).toMatchObject({ literal: true });
  });

  test("a literal pattern is preferred to a wildcard that also matches", () => {
    expect(admitted(["*.example.com", "db.example.com"], "db.example.com", 5432)).toMatchObject({ literal: true, pattern: { text: "db.example.com" } });
  });

  test("what is not a pattern is said, with an example", () => {
    expect(patternProblem("https://api.example.com")).toContain("expected a host such as api.example.com");
    expect(patternProblem("*")).toContain("expected a host");
    expect(patternProblem("a.*.com")).toContain("expected a host");
    expect(patternProblem("host:0")).toContain("port from 1 to 65535");
    expect(patternProblem("*.127.0.0.1")).toContain("not an address");
    expect(patternProblem("[not:an:address]")).toBeDefined();
    for (const good of ["api.example.com", "*.github.com", "localhost:4873", "127.0.0.1:8080", "[::1]:80", "registry.npmjs.org"]) {
      expect(patternProblem(good)).toBeUndefined();
    }
  });
});

describe("local addresses", () => {
  test("loopback, private, link-local, CGNAT and metadata addresses are the machine's or its network's", () => {
    for (const address of ["127.0.0.1", "127.0.0.2", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.100.100.200", "192.0.0.192", "224.0.0.1", "255.255.255.255"]) {
      expect(localAddressKind(address), address).toBeDefined();
    }
    expect(localAddressKind("169.254.169.254")).toContain("metadata");
  });

  test("IPv6: loopback, unspecified, link-local, unique-local (fd00:ec2::254) and multicast", () => {
    for (const address of ["::1", "::", "fe80::1", "fd00:ec2::254", "fc00::1", "ff02::1", "fec0::1"]) {
      expect(localAddressKind(address), address).toBeDefined();
    }
  });

  test("an IPv4 address inside IPv6 is judged as itself: mapped, compatible, NAT64", () => {
    expect(localAddressKind("::ffff:127.0.0.1")).toBe("loopback");
    expect(localAddressKind("::ffff:7f00:1")).toBe("loopback");
    expect(localAddressKind("::ffff:169.254.169.254")).toContain("metadata");
    expect(localAddressKind("::ffff:a9fe:a9fe")).toContain("metadata");
    expect(localAddressKind("64:ff9b::10.0.0.1")).toBe("private");
    expect(localAddressKind("::ffff:8.8.8.8")).toBeUndefined();
  });

  test("public addresses are not", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "203.0.113.80", "2606:4700::1111", "2001:db8::1"]) {
      expect(localAddressKind(address), address).toBeUndefined();
    }
  });
});
