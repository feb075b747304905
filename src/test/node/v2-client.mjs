// The TypeScript SDK v2 client (@modelcontextprotocol/client), pinned to protocol revision 2026-07-28: no initialize,
// server/discover first, every request stateless; elicitation and sampling arrive as input_required rounds that the
// client fulfils with its own handlers and retries. Usage: see peer-steps.mjs parseArgs.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
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

const MODERN = '2026-07-28';
const { url, calls } = parseArgs(process.argv.slice(2));
const { counts, count } = handlerCounter();

const client = new Client(
  { name: 'peer-test-v2-client', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    versionNegotiation: { mode: { pin: MODERN } }
  }
);
client.setRequestHandler('elicitation/create', count('elicitation', elicitationAnswer));
client.setRequestHandler('sampling/createMessage', count('sampling', samplingAnswer));

const server = stdioServer(url);
const transport = server ? new StdioClientTransport(server) : new StreamableHTTPClientTransport(new URL(url));

await step('server/discover', async () => {
  await client.connect(transport);
  const connected = {
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    serverInfo: client.getServerVersion()
  };
  if (connected.era !== 'modern' || connected.protocolVersion !== MODERN) {
    throw new Error(`not a ${MODERN} connection: ${JSON.stringify(connected)}`);
  }
  return connected;
});
await listAndCall(client, calls, counts);
if (server) {
  await step('terminate', async () => {
    const pid = transport.pid;
    await transport.close();
    return exitedWithin(pid, 2000);
  });
}
done(client);
