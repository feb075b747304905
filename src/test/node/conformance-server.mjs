// A conformance "everything" server written on the TypeScript SDK v2 (@modelcontextprotocol/server, npm): the tools,
// resources and prompts the official conformance suite (@modelcontextprotocol/conformance, server mode) calls, for
// both requirement sets. It is the server "nobody here wrote" that .ci/conformance.sh runs directly and behind the
// gateway, in one of two shapes:
//   both  serves both eras the way the SDK documents it: 2025-era sessions on its sessionful Streamable HTTP transport
//         (WebStandardStreamableHTTPServerTransport: initialize, Mcp-Session-Id, server-to-client sampling and
//         elicitation requests, resource subscriptions) beside a strict 2026-07-28 handler (createMcpHandler with
//         legacy: 'reject', input_required rounds), routed per request with isLegacyRequest;
//   2026  the strict 2026-07-28 handler alone (a 2025 initialize gets -32022).
// The same catalog backs every shape; only how a tool asks the client differs (a request on the session, or an
// input_required round).
// Usage: node conformance-server.mjs both|2026 [port]   (127.0.0.1, path /mcp; prints "listening <url>" once bound)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  McpServer,
  MissingRequiredClientCapabilityError,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  hostHeaderValidationResponse,
  inputRequired,
  inputResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse
} from '@modelcontextprotocol/server';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const LOGGER = 'conformance-server';
const CAPITAL_QUESTION = 'What is the capital of France?';

const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
const text = (value) => ({ type: 'text', text: value });
const result = (...content) => ({ content });
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const onerror = (error) => console.error('[conformance-server] error:', error?.message ?? error);
// requestState is signed, so a client that alters it is refused (-32602) before a handler sees it
const stateCodec = createRequestStateCodec({ key: randomUUID() + randomUUID(), ttlSeconds: 600 });

// --- how a tool asks the client: on a 2025 session, a server-to-client request; on 2026-07-28, an input_required round
const sessionAsker = {
  async elicit(ctx, _key, params) {
    return { kind: 'elicit', ...(await ctx.mcpReq.elicitInput({ mode: 'form', ...params })) };
  },
  async sample(ctx, _key, params) {
    return { kind: 'sampling', result: await ctx.mcpReq.requestSampling(params) };
  },
  async roots(ctx) {
    return { kind: 'roots', result: await ctx.mcpReq.send({ method: 'roots/list' }) };
  }
};

// Runs `steps` (each { key, kind: 'elicit'|'sample'|'roots', params }) one round at a time on 2026-07-28 (all of one
// round's keys asked at once), or one request at a time on a session; answers the responses by key, or an
// input_required result to hand back as the tool's result.
async function ask(ctx, era, rounds) {
  const answers = era === 'session' ? {} : earlierAnswers(ctx);
  for (const [index, round] of rounds.entries()) {
    if (round.every((step) => step.key in answers)) continue;
    if (era === 'session') {
      for (const step of round) answers[step.key] = await sessionAsker[step.kind](ctx, step.key, step.params);
      continue;
    }
    const missing = round.filter((step) => inputResponse(ctx.mcpReq.inputResponses, step.key).kind === 'missing');
    if (missing.length === 0) {
      for (const step of round) answers[step.key] = inputResponse(ctx.mcpReq.inputResponses, step.key);
      continue;
    }
    requireCapabilities(ctx, missing);
    const inputRequests = {};
    for (const step of missing) {
      inputRequests[step.key] =
        step.kind === 'elicit'
          ? inputRequired.elicit({ mode: 'form', ...step.params })
          : step.kind === 'sample'
            ? inputRequired.createMessage(step.params)
            : inputRequired.listRoots();
    }
    // the answers of earlier rounds travel in the signed requestState
    const requestState = await stateCodec.mint({ round: index, answers: plain(answers) });
    return { pending: inputRequired({ inputRequests, requestState }) };
  }
  return { answers };
}

const CAPABILITY_OF = { elicit: 'elicitation', sample: 'sampling', roots: 'roots' };
function requireCapabilities(ctx, steps) {
  const declared = ctx.mcpReq.envelope?.clientCapabilities;
  if (declared === undefined) return;
  for (const step of steps) {
    const capability = CAPABILITY_OF[step.kind];
    if (declared[capability] === undefined) throw new MissingRequiredClientCapabilityError([capability]);
  }
}

const plain = (answers) => JSON.parse(JSON.stringify(answers));
function earlierAnswers(ctx) {
  const state = ctx.mcpReq.requestState();
  return state && typeof state === 'object' ? (state.answers ?? {}) : {};
}

const elicited = (answer, field) =>
  answer?.action === 'accept' && answer.content ? String(answer.content[field]) : `(${answer?.action ?? 'missing'})`;
const sampledText = (answer) => {
  const content = [answer?.result?.content ?? []].flat();
  return content.map((block) => block.text ?? JSON.stringify(block)).join('');
};
const rootUris = (answer) => (answer?.result?.roots ?? []).map((root) => root.uri).join(', ') || 'none';

// a tool that asks: `rounds` of steps, then `finish(answers)` makes its result
function askingTool(server, era, name, description, rounds, finish, inputSchema = object()) {
  server.registerTool(name, { description, inputSchema: fromJsonSchema(inputSchema) }, async (args, ctx) => {
    const asked = await ask(ctx, era, typeof rounds === 'function' ? rounds(args) : rounds);
    if (asked.pending) return asked.pending;
    return finish(asked.answers, args);
  });
}

const elicitStep = (key, message, requestedSchema) => ({ key, kind: 'elicit', params: { message, requestedSchema } });
const sampleStep = (key, prompt, maxTokens = 50) => ({
  key,
  kind: 'sample',
  params: { messages: [{ role: 'user', content: text(prompt) }], maxTokens }
});
const rootsStep = (key) => ({ key, kind: 'roots' });
const nameStep = (key) => elicitStep(key, 'What is your name?', object({ name: { type: 'string' } }, ['name']));

function catalog(era, subscriptions) {
  const server = new McpServer(
    { name: 'conformance-server', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: era === 'session' ? { subscribe: true, listChanged: true } : { listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {}
      },
      requestState: { verify: stateCodec.verify }
    }
  );
  const constant = (name, description, answer) =>
    server.registerTool(name, { description, inputSchema: fromJsonSchema(object()) }, async () => answer);

  constant('test_simple_text', 'Returns one text content', result(text('This is a simple text response for testing.')));
  constant('test_image_content', 'Returns one PNG image', result({ type: 'image', data: PNG, mimeType: 'image/png' }));
  constant('test_audio_content', 'Returns one WAV clip', result({ type: 'audio', data: WAV, mimeType: 'audio/wav' }));
  const embedded = (uri, mimeType, body) => ({ type: 'resource', resource: { uri, mimeType, text: body } });
  constant(
    'test_embedded_resource',
    'Returns one embedded text resource',
    result(embedded('test://embedded-resource', 'text/plain', 'This is an embedded resource content.'))
  );
  constant(
    'test_multiple_content_types',
    'Returns text, an image and an embedded resource',
    result(
      text('Multiple content types test:'),
      { type: 'image', data: PNG, mimeType: 'image/png' },
      embedded('test://mixed-content-resource', 'application/json', JSON.stringify({ test: 'data', value: 123 }))
    )
  );
  constant('test_error_handling', 'Always returns a tool error', {
    ...result(text('This tool intentionally returns an error for testing')),
    isError: true
  });
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Logs three info messages while it runs', inputSchema: fromJsonSchema(object()) },
    async (_args, ctx) => {
      for (const [index, line] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
        if (index > 0) await pause(50);
        await ctx.mcpReq.log('info', line, LOGGER);
      }
      return result(text('Tool with logging executed successfully'));
    }
  );
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100', inputSchema: fromJsonSchema(object()) },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await pause(50);
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` }
          });
        }
      }
      return result(text('Tool with progress executed successfully'));
    }
  );
  server.registerTool(
    'json_schema_2020_12_tool',
    {
      description: 'Tool with JSON Schema 2020-12 features',
      inputSchema: fromJsonSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false
      })
    },
    async () => result(text('ok'))
  );

  // --- 2025-era server requests (and their 2026-07-28 rounds) --------------------------------------------------------
  askingTool(
    server,
    era,
    'test_sampling',
    "Asks the client's model to answer the prompt",
    (args) => [[sampleStep('prompt', args.prompt ?? 'say something', 100)]],
    (answers) => result(text(`LLM response: ${sampledText(answers.prompt)}`)),
    object({ prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, ['prompt'])
  );
  const elicitedResult = (prefix, answer) =>
    result(text(`${prefix}action=${answer?.action}, content=${JSON.stringify(answer?.content ?? {})}`));
  askingTool(
    server,
    era,
    'test_elicitation',
    'Asks the user for a username and an email',
    (args) => [
      [
        elicitStep(
          'response',
          args.message ?? 'Please provide your information',
          object(
            { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
            ['username', 'email']
          )
        )
      ]
    ],
    (answers) => elicitedResult('User response: ', answers.response),
    object({ message: { type: 'string', description: 'The message to show the user' } }, ['message'])
  );
  askingTool(
    server,
    era,
    'test_elicitation_sep1034_defaults',
    'Asks for input with a default for every primitive type',
    [
      [
        elicitStep('defaults', 'Please review your information', {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true }
          },
          required: []
        })
      ]
    ],
    (answers) => elicitedResult('Elicitation completed: ', answers.defaults)
  );
  const titled = (prefix, noun) =>
    ['First', 'Second', 'Third'].map((ordinal, index) => ({ const: `${prefix}${index + 1}`, title: `${ordinal} ${noun}` }));
  askingTool(
    server,
    era,
    'test_elicitation_sep1330_enums',
    'Asks for input with every enum schema variant',
    [
      [
        elicitStep('enums', 'Please choose your options', {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: { type: 'string', oneOf: titled('value', 'Option') },
            legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
            untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
            titledMulti: { type: 'array', items: { anyOf: titled('value', 'Choice') } }
          },
          required: []
        })
      ]
    ],
    (answers) => elicitedResult('Elicitation completed: ', answers.enums)
  );

  // --- the 2026-07-28 input_required scenarios -----------------------------------------------------------------------
  askingTool(server, era, 'test_input_required_result_elicitation', "Asks the user's name (input user_name)", [[nameStep('user_name')]], (a) =>
    result(text(`Hello, ${elicited(a.user_name, 'name')}`))
  );
  askingTool(
    server,
    era,
    'test_input_required_result_sampling',
    "Asks the client's model a question (input capital_question)",
    [[sampleStep('capital_question', CAPITAL_QUESTION)]],
    (a) => result(text(`Sampled answer: ${sampledText(a.capital_question)}`))
  );
  askingTool(server, era, 'test_input_required_result_list_roots', 'Lists the client roots (input roots)', [[rootsStep('roots')]], (a) =>
    result(text(`Roots: ${rootUris(a.roots)}`))
  );
  askingTool(
    server,
    era,
    'test_input_required_result_request_state',
    'Asks for a confirmation (input confirm) in a round whose signed requestState must come back',
    [[elicitStep('confirm', 'Please confirm to continue', object({ ok: { type: 'boolean' } }, ['ok']))]],
    (a) => result(text(a.confirm?.action === 'accept' && a.confirm.content?.ok === true ? 'state-ok' : 'state-not-ok'))
  );
  askingTool(
    server,
    era,
    'test_input_required_result_multiple_inputs',
    'Asks for a name, a sample and the roots at once (three inputs)',
    [[nameStep('user_name'), sampleStep('capital_question', CAPITAL_QUESTION), rootsStep('roots')]],
    (a) =>
      result(text(`name: ${elicited(a.user_name, 'name')}; sample: ${sampledText(a.capital_question)}; roots: ${rootUris(a.roots)}`))
  );
  askingTool(
    server,
    era,
    'test_input_required_result_multi_round',
    'Asks two questions one after the other (inputs step1, then step2)',
    [
      [elicitStep('step1', 'Step 1: what is your name?', object({ name: { type: 'string' } }, ['name']))],
      [elicitStep('step2', 'Step 2: what is your favourite colour?', object({ colour: { type: 'string' } }, ['colour']))]
    ],
    (a) => result(text(`multi-round complete: ${elicited(a.step1, 'name')}, ${elicited(a.step2, 'colour')}`))
  );
  askingTool(
    server,
    era,
    'test_input_required_result_tampered_state',
    'Asks one question (tamper_check); the signed round state must come back unaltered',
    [[nameStep('tamper_check')]],
    (a) => result(text(`state accepted: ${elicited(a.tamper_check, 'name')}`))
  );
  askingTool(
    server,
    era,
    'test_input_required_result_capabilities',
    'Asks for a sample only (input capability_sample), the one capability it needs',
    [[sampleStep('capability_sample', CAPITAL_QUESTION)]],
    (a) => result(text(`capabilities-ok: ${sampledText(a.capability_sample)}`))
  );
  askingTool(
    server,
    era,
    'test_missing_capability',
    "Needs the client's sampling capability; answers Success",
    [[sampleStep('missing_capability_sample', CAPITAL_QUESTION)]],
    () => result(text('Success'))
  );

  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Streams a progress notification on its response stream, then answers', inputSchema: fromJsonSchema(object()) },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken ?? 'test_streaming_elicitation';
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 50, total: 100, message: 'streaming' } });
      return result(text('Streaming complete'));
    }
  );
  server.registerTool(
    'test_logging_tool',
    { description: 'Logs three info lines (for a client that asked for logs), then answers', inputSchema: fromJsonSchema(object()) },
    async (_args, ctx) => {
      for (const line of ['logging tool started', 'logging tool working', 'logging tool finished']) await ctx.mcpReq.log('info', line, LOGGER);
      return result(text('Logging evaluated'));
    }
  );

  // --- resources ---------------------------------------------------------------------------------------------------
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'Static text', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]
    })
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'Static binary', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }] })
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'Watched resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }] })
  );
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data for one id', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` })
        }
      ]
    })
  );
  if (era === 'session') {
    server.server.setRequestHandler('resources/subscribe', async (request) => {
      subscriptions.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', async (request) => {
      subscriptions.delete(request.params.uri);
      return {};
    });
  }

  // --- prompts -----------------------------------------------------------------------------------------------------
  const userMessage = (content) => ({ role: 'user', content });
  server.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments' }, async () => ({
    messages: [userMessage(text('This is a simple prompt for testing.'))]
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments',
      argsSchema: fromJsonSchema(
        object({ arg1: { type: 'string', description: 'First test argument' }, arg2: { type: 'string', description: 'Second test argument' } }, [
          'arg1',
          'arg2'
        ])
      )
    },
    async ({ arg1, arg2 }) => ({ messages: [userMessage(text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`))] })
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt embedding a resource',
      argsSchema: fromJsonSchema(object({ resourceUri: { type: 'string', description: 'URI of the resource to embed' } }, ['resourceUri']))
    },
    async ({ resourceUri }) => ({
      messages: [
        userMessage({ type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
        userMessage(text('Please process the embedded resource above.'))
      ]
    })
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, async () => ({
    messages: [userMessage({ type: 'image', data: PNG, mimeType: 'image/png' }), userMessage(text('Please analyze the image above.'))]
  }));
  server.registerPrompt('test_input_required_result_prompt', { description: 'Asks for context (input user_context)' }, async (ctx) => {
    const asked = await ask(ctx, era, [
      [elicitStep('user_context', 'What context should the prompt use?', object({ context: { type: 'string' } }, ['context']))]
    ]);
    if (asked.pending) return asked.pending;
    return { messages: [userMessage(text(`Use this context: ${elicited(asked.answers.user_context, 'context')}`))] };
  });

  // --- completion --------------------------------------------------------------------------------------------------
  server.server.setRequestHandler('completion/complete', async () => ({ completion: { values: [], total: 0, hasMore: false } }));
  return server;
}

// --- HTTP: Origin and Host checks (DNS rebinding), then the era's handler -------------------------------------------
const modern = createMcpHandler(() => catalog('modern'), { legacy: 'reject', onerror });
const sessions = new Map();

async function legacy(request) {
  const id = request.headers.get('mcp-session-id');
  if (id) {
    const transport = sessions.get(id);
    if (!transport) return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
    return transport.handleRequest(request);
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    onsessionclosed: (sessionId) => sessions.delete(sessionId)
  });
  transport.onerror = onerror;
  const server = catalog('session', new Set());
  await server.connect(transport);
  return transport.handleRequest(request);
}

async function answer(request, shape) {
  const refused =
    hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
  if (refused) return refused;
  if (shape === 'both' && (await isLegacyRequest(request))) return legacy(request);
  return modern.fetch(request);
}

function serve(shape, port) {
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
      const response = await answer(request, shape);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.flushHeaders();
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

const [shape, port] = process.argv.slice(2);
if (shape !== 'both' && shape !== '2026') {
  console.error('usage: node conformance-server.mjs both|2026 [port]');
  process.exit(2);
}
serve(shape, Number(port ?? 0));
