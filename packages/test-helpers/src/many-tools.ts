/**
 * Many tools, as a user who mounts a dozen MCP servers has: `count` tool descriptions of 25
 * services × 20 operations (`github_create_record`, "Create a new record in GitHub:
 * repositories, issues and pull requests."), each with its own parameters, plus one tool
 * whose name says nothing of what it does (`sky_report`, found only by its description). The
 * same list serves the tool-search tests (a fixture MCP server lists it) and the benchmark.
 */

/** A tool as an MCP server lists it. */
export interface ManyTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: {
    readonly type: "object";
    readonly properties: Readonly<Record<string, { readonly type: string; readonly description: string }>>;
    readonly required: readonly string[];
  };
}

/** The tool found only by its description: it tells the weather. */
export const NEEDLE_TOOL: ManyTool = {
  name: "sky_report",
  description: "Tell tomorrow's weather for a city: temperature, rain and wind, hour by hour.",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string", description: "the city's name" }, days: { type: "integer", description: "how many days ahead, 1 to 7" } },
    required: ["city"],
  },
};

const SERVICES: readonly (readonly [string, string, string])[] = [
  ["github", "GitHub", "repositories, issues and pull requests"],
  ["gitlab", "GitLab", "projects, merge requests and pipelines"],
  ["jira", "Jira", "tickets, sprints and boards"],
  ["linear", "Linear", "issues, cycles and roadmaps"],
  ["slack", "Slack", "channels, messages and threads"],
  ["discord", "Discord", "servers, channels and members"],
  ["notion", "Notion", "pages, databases and blocks"],
  ["confluence", "Confluence", "spaces, wiki pages and attachments"],
  ["postgres", "PostgreSQL", "tables, rows and SQL queries"],
  ["mysql", "MySQL", "schemas, tables and indexes"],
  ["redis", "Redis", "keys, streams and cached values"],
  ["s3", "Amazon S3", "buckets, objects and presigned URLs"],
  ["gcs", "Google Cloud Storage", "buckets, blobs and lifecycle rules"],
  ["stripe", "Stripe", "payments, invoices and customers"],
  ["twilio", "Twilio", "SMS messages, phone numbers and calls"],
  ["sendgrid", "SendGrid", "email campaigns, templates and contacts"],
  ["calendar", "Google Calendar", "events, invitations and free/busy times"],
  ["drive", "Google Drive", "documents, folders and sharing permissions"],
  ["sheets", "Google Sheets", "spreadsheets, cells and formulas"],
  ["salesforce", "Salesforce", "leads, opportunities and accounts"],
  ["hubspot", "HubSpot", "contacts, deals and marketing lists"],
  ["zendesk", "Zendesk", "support tickets, agents and macros"],
  ["sentry", "Sentry", "error events, releases and alerts"],
  ["datadog", "Datadog", "metrics, monitors and dashboards"],
  ["kubernetes", "Kubernetes", "pods, deployments and namespaces"],
];

const OPERATIONS: readonly (readonly [string, string, readonly string[]])[] = [
  ["list_records", "List the records", ["limit", "cursor"]],
  ["get_record", "Fetch one record by its id", ["record_id"]],
  ["create_record", "Create a new record", ["title", "body"]],
  ["update_record", "Change the fields of a record", ["record_id", "fields"]],
  ["delete_record", "Delete a record for good", ["record_id"]],
  ["search_records", "Find records matching a text query", ["query", "limit"]],
  ["export_report", "Export a summary report as CSV", ["since", "until"]],
  ["import_file", "Import records from an uploaded file", ["file_url"]],
  ["archive_record", "Archive a record so it is hidden but kept", ["record_id"]],
  ["restore_record", "Bring an archived record back", ["record_id"]],
  ["add_comment", "Add a comment to a record", ["record_id", "text"]],
  ["assign_owner", "Make a person the owner of a record", ["record_id", "user"]],
  ["add_label", "Put a label on a record", ["record_id", "label"]],
  ["share_link", "Make a link others can open", ["record_id", "expires_in"]],
  ["create_webhook", "Subscribe a URL to change notifications", ["target_url", "events"]],
  ["count_records", "Count the records that match a filter", ["filter"]],
  ["download_attachment", "Download a file attached to a record", ["attachment_id"]],
  ["upload_attachment", "Attach a file to a record", ["record_id", "file_url"]],
  ["move_record", "Move a record to another folder or parent", ["record_id", "destination"]],
  ["merge_duplicates", "Merge two records that describe the same thing", ["record_id", "duplicate_id"]],
];

/**
 * `count` tools (at most 501): `NEEDLE_TOOL` in the middle, the others service by service.
 *
 * @example const tools = manyTools(300); // tools[150] is sky_report
 */
export function manyTools(count: number): ManyTool[] {
  const generated = SERVICES.flatMap(([prefix, service, things]) =>
    OPERATIONS.map(([operation, action, parameters]): ManyTool => {
      const properties = Object.fromEntries(parameters.map((name) => [name, { type: name === "limit" ? "integer" : "string", description: `the ${name.replaceAll("_", " ")}` }]));
      return {
        name: `${prefix}_${operation}`,
        description: `${action} in ${service}: ${things}.`,
        inputSchema: { type: "object", properties, required: parameters.slice(0, 1) },
      };
    }),
  );
  if (count > generated.length + 1) throw new RangeError(`manyTools makes at most ${generated.length + 1} tools, asked for ${count}`);
  const tools = generated.slice(0, count - 1);
  tools.splice(Math.floor(count / 2), 0, NEEDLE_TOOL);
  return tools.slice(0, count);
}
