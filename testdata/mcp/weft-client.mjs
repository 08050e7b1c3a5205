// An agent's side of `weft mcp serve`, with the official MCP TypeScript SDK
// (backend/cli's TestMCPServeWithTheTypeScriptSDK starts it): it starts
// the command in argv[2] (a JSON array) over stdio, lists the tools, makes
// the calls in argv[3] (a JSON array of {name, arguments}) and prints one
// JSON object: the tools and each call's result or error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.argv[2]);
const calls = JSON.parse(process.argv[3] ?? "[]");
const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
const client = new Client({ name: "weft-test-agent", version: "1.0.0" });
await client.connect(transport);
const out = { tools: (await client.listTools()).tools, calls: [] };
for (const c of calls) {
  try {
    out.calls.push({ result: await client.callTool({ name: c.name, arguments: c.arguments }) });
  } catch (e) {
    out.calls.push({ error: String(e?.message ?? e), code: e?.code });
  }
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
