// An MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server) that speaks protocol revision 2026-07-28 only
// (legacy: 'reject': an initialize gets -32022). Tools: echo {text}, ask_name (elicitation through an input_required
// round, with a requestState that must come back unchanged) and ask_model {prompt} (sampling, no requestState).
// Usage: node v2-server.mjs stdio
//        node v2-server.mjs http <port>    (127.0.0.1, path /mcp; prints "listening <url>" once bound; 0 = free port)
import http from 'node:http';
import { Readable } from 'node:stream';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  hostHeaderValidationResponse,
  inputRequired,
  inputResponse,
  localhostAllowedHostnames
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const REQUEST_STATE = 'ask_name:round-1:opaque+/=';
const object = (properties, required = []) => ({ type: 'object', properties, required });
const textResult = (text, isError = false) => ({ content: [{ type: 'text', text }], isError });

function createServer() {
  const server = new McpServer({ name: 'peer-test-v2-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    { description: 'Answers the text it was given', inputSchema: fromJsonSchema(object({ text: { type: 'string' } }, ['text'])) },
    async ({ text }) => textResult(text)
  );

  const nameSchema = object({ name: { type: 'string' } }, ['name']);
  server.registerTool('ask_name', { description: 'Asks the user for a name (elicitation) and greets them' }, async (ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name', fromJsonSchema(nameSchema));
    if (answer === undefined) {
      if (inputResponse(ctx.mcpReq.inputResponses, 'name').kind === 'elicit') return textResult('elicitation not accepted', true);
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }) },
        requestState: REQUEST_STATE
      });
    }
    const state = ctx.mcpReq.requestState();
    if (state !== REQUEST_STATE) return textResult(`requestState came back changed: ${JSON.stringify(state)}`, true);
    return textResult(`hello ${answer.name}`);
  });

  server.registerTool(
    'ask_model',
    { description: 'Asks the client LLM (sampling) and answers its text', inputSchema: fromJsonSchema(object({ prompt: { type: 'string' } })) },
    async ({ prompt }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'llm');
      if (answer.kind !== 'sampling') {
        return inputRequired({
          inputRequests: {
            llm: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: prompt ?? 'say something' } }],
              maxTokens: 50
            })
          }
        });
      }
      const content = [answer.result.content].flat();
      return textResult(content.map((block) => block.text ?? '').join(''));
    }
  );
  return server;
}

const onerror = (error) => console.error('[v2-server] error:', error?.message ?? error);

function serveHttp(port) {
  const handler = createMcpHandler(() => createServer(), { legacy: 'reject', onerror });
  // node:http to fetch Request/Response and back (what @modelcontextprotocol/node's toNodeHandler would do)
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, `http://${req.headers.host ?? '127.0.0.1'}`);
      if (url.pathname !== '/mcp') return void res.writeHead(404).end();
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const aborted = new AbortController();
      res.on('close', () => aborted.abort());
      const request = new Request(url, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([name, value]) => [value].flat().map((v) => [name, v])),
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: hasBody ? 'half' : undefined,
        signal: aborted.signal
      });
      const response =
        hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? (await handler.fetch(request));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (error) {
      onerror(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(port, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}/mcp`));
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}

const [mode, port] = process.argv.slice(2);
if (mode === 'stdio') serveStdio(() => createServer(), { legacy: 'reject', onerror });
else if (mode === 'http') serveHttp(Number(port ?? 0));
else {
  console.error('usage: node v2-server.mjs stdio | http <port>');
  process.exit(2);
}
