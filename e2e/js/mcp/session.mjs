// session.mjs drives one MCP session against a stdio server with the
// official TypeScript client (@modelcontextprotocol/client, pinned in
// package.json) and prints what it saw as one JSON object on stdout.
//
// Input: the JSON file named by argv[2]:
//   {"command": "svc", "args": ["mcp"], "env": {...},
//    "era": "modern" | "legacy",
//    "calls": [{"tool": "svc_insights", "arguments": {...}}, ...],
//    "readResources": ["svc://glossary", ...],
//    "prompts": [{"name": "...", "arguments": {...}}, ...]}
//
// Output: {"protocolVersion", "era", "server", "tools", "resources",
// "prompts", "listTokens": {tools, resources, prompts} (o200k tokens of each
// list's whole JSON result), "reads": [...], "promptResults": [...], "results": [{tool, isError,
// error, text, structuredContent, textBytes, structuredBytes, textTokens,
// structuredTokens, tokens}]}
//
// Tokens are counted with gpt-tokenizer's o200k_base encoding (the BPE of
// OpenAI's current models, pure JavaScript, no dependencies), pinned in
// package-lock.json: no Claude tokenizer for current models is published, and
// what the test guards is the relative size of a result, which any fixed
// modern BPE measures. "tokens" is what a host that forwards both channels
// to the model pays: the text blocks plus structuredContent serialized as
// JSON. callTool validates structuredContent against the tool's
// outputSchema (the client does that itself, with Ajv); a failed validation
// is reported in "error".
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const versionNegotiation = input.era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' };
const client = new Client({ name: 'svc-e2e-ts', version: '1.0.0' }, { versionNegotiation });
const transport = new StdioClientTransport({
  command: input.command,
  args: input.args ?? [],
  env: input.env ?? {},
  stderr: 'inherit',
});
await client.connect(transport);

const out = {
  protocolVersion: client.getNegotiatedProtocolVersion(),
  era: client.getProtocolEra(),
  server: client.getServerVersion() ?? null,
  instructions: client.getInstructions?.() ?? null,
  capabilities: client.getServerCapabilities() ?? null,
};
// listTokens: what a host pays up front, the whole JSON result of each list.
const toolsList = await client.listTools();
out.tools = toolsList.tools;
const caps = out.capabilities ?? {};
const resourcesList = caps.resources ? await client.listResources() : null;
const promptsList = caps.prompts ? await client.listPrompts() : null;
out.resources = resourcesList ? resourcesList.resources : null;
out.prompts = promptsList ? promptsList.prompts : null;
out.listTokens = {
  tools: countTokens(JSON.stringify(toolsList)),
  resources: resourcesList ? countTokens(JSON.stringify(resourcesList)) : 0,
  prompts: promptsList ? countTokens(JSON.stringify(promptsList)) : 0,
};

out.reads = [];
for (const uri of input.readResources ?? []) {
  try {
    const r = await client.readResource({ uri });
    out.reads.push({ uri, contents: r.contents, ttlMs: r.ttlMs ?? null, cacheScope: r.cacheScope ?? null });
  } catch (err) {
    out.reads.push({ uri, error: String(err?.message ?? err) });
  }
}

out.promptResults = [];
for (const p of input.prompts ?? []) {
  try {
    const r = await client.getPrompt({ name: p.name, arguments: p.arguments ?? {} });
    out.promptResults.push({ name: p.name, messages: r.messages });
  } catch (err) {
    out.promptResults.push({ name: p.name, error: String(err?.message ?? err) });
  }
}

out.results = [];
for (const call of input.calls ?? []) {
  const rec = { tool: call.tool, arguments: call.arguments ?? {} };
  try {
    const r = await client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
    const text = (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    const structured = r.structuredContent === undefined ? '' : JSON.stringify(r.structuredContent);
    // Cursors are random: count a fixed one of the same shape, so that the
    // figures of one run are those of every run.
    const fixed = (s) => s.replace(/c1\.[0-9a-f]{32}/g, 'c1.0123456789abcdef0123456789abcdef');
    Object.assign(rec, {
      isError: r.isError === true,
      text,
      structuredContent: r.structuredContent ?? null,
      textBytes: Buffer.byteLength(text),
      structuredBytes: Buffer.byteLength(structured),
      textTokens: countTokens(fixed(text)),
      structuredTokens: countTokens(fixed(structured)),
    });
    rec.tokens = rec.textTokens + rec.structuredTokens;
  } catch (err) {
    rec.error = String(err?.message ?? err);
  }
  out.results.push(rec);
}
await client.close();
process.stdout.write(JSON.stringify(out));
