// The TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.x): a 2025-11-25 session (initialize, Mcp-Session-Id);
// elicitation and sampling arrive as server-to-client requests its handlers answer. Usage: see peer-steps.mjs
// parseArgs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  done,
  elicitationAnswer,
  exitedWithin,
  handlerCounter,
  listAndCall,
  parseArgs,
  samplingAnswer,
  stdioServer,
  step
} from './peer-steps.mjs';

const { url, calls } = parseArgs(process.argv.slice(2));
const { counts, count } = handlerCounter();

const client = new Client(
  { name: 'peer-test-v1-client', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} }, sampling: {} } }
);
client.setRequestHandler(ElicitRequestSchema, count('elicitation', elicitationAnswer));
client.setRequestHandler(CreateMessageRequestSchema, count('sampling', samplingAnswer));
const server = stdioServer(url);
const transport = server ? new StdioClientTransport(server) : new StreamableHTTPClientTransport(new URL(url));

await step('initialize', async () => {
  await client.connect(transport);
  if (!server && !transport.sessionId) throw new Error('the gateway gave no Mcp-Session-Id');
  return { protocolVersion: transport.protocolVersion, serverInfo: client.getServerVersion() };
});
await listAndCall(client, calls, counts);
await step('terminate', async () => {
  if (server) {
    // closing stdin ends the stdio server: its process (and every server behind it) is gone within 2 s
    const pid = transport.pid;
    await transport.close();
    return exitedWithin(pid, 2000);
  }
  // DELETE ends the gateway session (and releases its upstream lease)
  await transport.terminateSession();
  if (transport.sessionId !== undefined) throw new Error('the session is still open');
  return 'DELETE answered';
});
done(client);
