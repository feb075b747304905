// What every client script does and checks, whichever SDK it runs on: the command line, the fixed answers its
// handlers give to elicitation and sampling, the tools each upstream peer has and the exact answers expected, and
// the report: one JSON line per step on stdout ({"step","ok","value"|"error"}), exit 1 at the first wrong answer.

export const ELICITED_NAME = 'Alice';
export const SAMPLED_TEXT = 'model says hi';
const ECHO_TEXT = 'through the gateway';
const STEP_TIMEOUT_MS = 30_000;

export const elicitationAnswer = () => ({ action: 'accept', content: { name: ELICITED_NAME } });
export const samplingAnswer = () => ({
  model: 'fixed-model',
  role: 'assistant',
  content: { type: 'text', text: SAMPLED_TEXT },
  stopReason: 'endTurn'
});

const textOf = (result) => (result?.content ?? []).map((block) => block.text ?? '').join('\n');

// the calls a script can make, per upstream peer: tool name, arguments, the handler it must go through (if any),
// and the check of the answer's text
const PEERS = {
  // @modelcontextprotocol/server-everything (2025 sessions, real server->client requests)
  everything: {
    echo: { tool: 'echo', args: { message: ECHO_TEXT }, expect: (text) => text === `Echo: ${ECHO_TEXT}` },
    elicitation: {
      tool: 'trigger-elicitation-request',
      args: {},
      handler: 'elicitation',
      expect: (text) => text.includes(`- Name: ${ELICITED_NAME}`)
    },
    sampling: {
      tool: 'trigger-sampling-request',
      args: { prompt: 'hi?', maxTokens: 20 },
      handler: 'sampling',
      expect: (text) => text.startsWith('LLM sampling result:') && text.includes(SAMPLED_TEXT)
    }
  },
  // v2-server.mjs (2026-07-28 only, input_required rounds)
  modern: {
    echo: { tool: 'echo', args: { text: ECHO_TEXT }, expect: (text) => text === ECHO_TEXT },
    elicitation: { tool: 'ask_name', args: {}, handler: 'elicitation', expect: (text) => text === `hello ${ELICITED_NAME}` },
    sampling: { tool: 'ask_model', args: { prompt: 'hi?' }, handler: 'sampling', expect: (text) => text === SAMPLED_TEXT }
  }
};

/**
 * node <script> <url> --peer everything|modern [--prefix <tool prefix>] [--calls echo,elicitation,sampling]
 * The prefix is what the gateway's aggregate endpoint puts before a server's tool names ("everything__").
 */
export function parseArgs(argv) {
  const options = { prefix: '', calls: 'echo,elicitation,sampling' };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) options[argv[i].slice(2)] = argv[++i];
    else positional.push(argv[i]);
  }
  const peer = PEERS[options.peer];
  if (positional.length !== 1 || !peer) {
    console.error('usage: <script> <url> --peer everything|modern [--prefix p] [--calls echo,elicitation,sampling]');
    process.exit(2);
  }
  const calls = options.calls.split(',').map((name) => {
    if (!peer[name]) {
      console.error(`unknown call ${name}`);
      process.exit(2);
    }
    return { name, ...peer[name], tool: options.prefix + peer[name].tool };
  });
  return { url: positional[0], calls };
}

/**
 * A server the client starts as a process ("stdio:" then its command line as a JSON array, e.g. mcp-supervisor's
 * `stdio` command), or null for an http(s) URL.
 */
export function stdioServer(url) {
  if (!url.startsWith('stdio:')) return null;
  const [command, ...args] = JSON.parse(url.slice('stdio:'.length));
  return { command, args, stderr: 'inherit' };
}

/** After the client closed the server's stdin: the server's process is gone within `withinMs`, else it throws. */
export async function exitedWithin(pid, withinMs) {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return `process ${pid} exited`;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`process ${pid} still runs ${withinMs} ms after stdin closed`);
}

/** Counts how often the client's own elicitation and sampling handlers ran, so a step can say its round went there. */
export function handlerCounter() {
  const counts = { elicitation: 0, sampling: 0 };
  return { counts, count: (handler, answer) => async () => (counts[handler]++, answer()) };
}

function report(step, fields) {
  console.log(JSON.stringify({ step, ...fields }));
}

function fail(step, error) {
  // name, message, and the JSON-RPC code and data an SDK error carries; no stack (the message says what went wrong)
  const described = [`${error?.name ?? 'Error'}: ${error?.message ?? error}`];
  if (error?.code !== undefined) described.push(`code ${error.code}`);
  if (error?.data !== undefined) described.push(`data ${JSON.stringify(error.data)}`);
  report(step, { ok: false, error: described.join('; ') });
  process.exit(1);
}

/** Runs one step: its value is printed, a thrown error or a timeout ends the script. */
export async function step(name, action) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  try {
    const value = await Promise.race([action(), timeout]);
    report(name, { ok: true, value });
    return value;
  } catch (error) {
    fail(name, error);
  } finally {
    clearTimeout(timer);
  }
}

/** tools/list must list every tool the calls need; then each call must answer exactly as its peer should. */
export async function listAndCall(client, calls, counts) {
  await step('tools/list', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    const missing = calls.map((call) => call.tool).filter((tool) => !names.includes(tool));
    if (missing.length > 0) throw new Error(`missing tools ${missing.join(', ')} in ${names.join(', ')}`);
    return names;
  });
  for (const call of calls) {
    await step(call.name, async () => {
      const before = call.handler ? counts[call.handler] : 0;
      const result = await client.callTool({ name: call.tool, arguments: call.args });
      const text = textOf(result);
      if (result.isError || !call.expect(text)) {
        throw new Error(`unexpected answer from ${call.tool}: ${JSON.stringify(result).slice(0, 1000)}`);
      }
      if (call.handler && counts[call.handler] !== before + 1) {
        throw new Error(`the ${call.handler} handler ran ${counts[call.handler] - before} times, not once`);
      }
      return { tool: call.tool, text: text.slice(0, 300) };
    });
  }
}

export function done(client) {
  report('done', { ok: true });
  // the connection's close is not part of what is tested; exit at once
  client.close().catch(() => {}).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
}
