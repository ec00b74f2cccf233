// Drives raggin-lsp over stdio with the VS Code client stack's own JSON-RPC library
// (vscode-languageserver-protocol), as vscode-languageclient does inside the editor.
//
// Environment (set by tests/editors/test_vscode_client.py):
//   RAGGIN_SERVER_COMMAND  JSON array, e.g. ["/path/python", "-m", "raggin_lsp", "serve"]
//   RAGGIN_PROJECT         a Next.js project folder (node_modules/next names the version)
//   RAGGIN_VERSION         the version that project uses, e.g. 16.2.0
//   RAGGIN_INIT_OPTIONS    JSON initializationOptions (profile, qdrantPath, ollamaHost, model, ...)
//   RAGGIN_FAKE_REPLY      text the fake Ollama streams for every answer
//   RAGGIN_DEPRECATED_FILE a file of the project that imports `next/legacy/image`, which
//                          the project version's docs deprecate in favour of `next/image`
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

const env = process.env;
const missing = [
  'RAGGIN_SERVER_COMMAND',
  'RAGGIN_PROJECT',
  'RAGGIN_VERSION',
  'RAGGIN_INIT_OPTIONS',
  'RAGGIN_FAKE_REPLY',
  'RAGGIN_DEPRECATED_FILE',
].filter((name) => !env[name]);
const REQUEST_TIMEOUT_MS = 180_000;

function withTimeout(promise, what, ms = REQUEST_TIMEOUT_MS) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** 0-based position of `needle` in a file, plus `offset` characters. */
function positionOf(text, needle, offset = 1) {
  const index = text.indexOf(needle);
  assert.ok(index >= 0, `${needle} not found`);
  const line = text.slice(0, index).split('\n').length - 1;
  return { line, character: index - (text.lastIndexOf('\n', index - 1) + 1) + offset };
}

/** The range of `needle` in a file. */
function rangeOf(text, needle) {
  const start = positionOf(text, needle, 0);
  return { start, end: { line: start.line, character: start.character + needle.length } };
}

/** `text` with LSP TextEdits applied, as the editor applies a WorkspaceEdit to a buffer. */
function applyEdits(text, edits) {
  const lines = text.split('\n');
  const offset = ({ line, character }) =>
    lines.slice(0, line).reduce((sum, current) => sum + current.length + 1, 0) + character;
  return [...edits]
    .sort((a, b) => offset(b.range.start) - offset(a.range.start))
    .reduce(
      (result, edit) =>
        result.slice(0, offset(edit.range.start)) + edit.newText + result.slice(offset(edit.range.end)),
      text,
    );
}

describe('raggin-lsp over stdio with vscode-languageserver-protocol', { skip: missing.length ? `set ${missing.join(', ')}` : false }, () => {
  let server;
  let connection;
  let stderr = '';
  const logs = [];
  const progress = new Map(); // token -> [value, ...]
  const initOptions = missing.length ? {} : JSON.parse(env.RAGGIN_INIT_OPTIONS);
  const project = env.RAGGIN_PROJECT ?? '';
  const version = env.RAGGIN_VERSION ?? '';
  const pagePath = join(project, 'app', 'page.tsx');
  const actionsPath = join(project, 'app', 'actions.ts');
  const diagnostics = () => `\n--- server log ---\n${logs.join('\n')}\n--- stderr ---\n${stderr.slice(-4000)}`;

  before(async () => {
    const [command, ...args] = JSON.parse(env.RAGGIN_SERVER_COMMAND);
    server = spawn(command, args, { cwd: project, stdio: ['pipe', 'pipe', 'pipe'] });
    server.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
    });
    connection = createProtocolConnection(
      new StreamMessageReader(server.stdout),
      new StreamMessageWriter(server.stdin),
    );
    // What VS Code answers: the `raggin` section for workspace/configuration, yes to tokens.
    connection.onRequest('workspace/configuration', (params) =>
      params.items.map((item) => (item.section === 'raggin' ? initOptions : null)),
    );
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/showMessageRequest', () => null);
    connection.onRequest('window/showDocument', () => ({ success: false }));
    connection.onRequest('workspace/diagnostic/refresh', () => null);
    connection.onNotification('window/logMessage', (params) => logs.push(params.message));
    connection.onNotification('window/showMessage', (params) => logs.push(`[shown] ${params.message}`));
    connection.onNotification('$/progress', ({ token, value }) => {
      if (!progress.has(token)) progress.set(token, []);
      progress.get(token).push(value);
    });
    connection.listen();

    const rootUri = pathToFileURL(project).toString();
    const result = await withTimeout(
      connection.sendRequest('initialize', {
        processId: process.pid,
        clientInfo: { name: 'raggin-stdio-test', version: '1' },
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: 'nextjs-project' }],
        initializationOptions: initOptions,
        capabilities: {
          window: { workDoneProgress: true, showDocument: { support: true } },
          workspace: {
            configuration: true,
            workspaceFolders: true,
            diagnostics: { refreshSupport: true },
            workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
          },
          textDocument: {
            hover: { contentFormat: ['markdown', 'plaintext'] },
            // VS Code pulls diagnostics (LSP 3.17) and shows code actions as literals.
            diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
            codeAction: {
              codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } },
              isPreferredSupport: true,
            },
          },
        },
      }),
      'initialize',
      30_000,
    );
    assert.equal(result.serverInfo?.name, 'raggin-lsp');
    assert.ok(result.capabilities.hoverProvider, 'the server offers hovers');
    connection.sendNotification('initialized', {});
    for (const path of [pagePath, actionsPath]) {
      connection.sendNotification('textDocument/didOpen', {
        textDocument: {
          uri: pathToFileURL(path).toString(),
          languageId: 'typescriptreact',
          version: 1,
          text: readFileSync(path, 'utf8'),
        },
      });
    }
  });

  after(async () => {
    if (connection) {
      try {
        await withTimeout(connection.sendRequest('shutdown'), 'shutdown', 10_000);
        connection.sendNotification('exit');
      } catch {
        // the exit check below tells what went wrong
      }
    }
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      const killer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    connection?.dispose();
  });

  test('hover on an imported Next.js API shows its docs section for the project version', async () => {
    const text = readFileSync(actionsPath, 'utf8');
    const hover = await withTimeout(
      connection.sendRequest('textDocument/hover', {
        textDocument: { uri: pathToFileURL(actionsPath).toString() },
        position: positionOf(text, 'revalidatePath(', 3),
      }),
      'hover',
    );
    assert.ok(hover, `no hover on revalidatePath${diagnostics()}`);
    assert.equal(hover.contents.kind, 'markdown');
    assert.match(hover.contents.value, new RegExp(`Next\\.js ${version.replace(/\./g, '\\.')} docs`));
    assert.match(hover.contents.value, /\]\(https:\/\/nextjs\.org\/docs\/[^)]*revalidatePath[^)]*\)/i);
  });

  test('hover on ordinary code answers nothing', async () => {
    const text = readFileSync(actionsPath, 'utf8');
    const hover = await withTimeout(
      connection.sendRequest('textDocument/hover', {
        textDocument: { uri: pathToFileURL(actionsPath).toString() },
        position: positionOf(text, 'formData.get', 2),
      }),
      'hover',
    );
    assert.equal(hover, null);
  });

  test('raggin/search returns sections of the project version, linked to nextjs.org', async () => {
    const results = await withTimeout(
      connection.sendRequest('raggin/search', {
        query: 'revalidate a path on demand',
        textDocument: { uri: pathToFileURL(actionsPath).toString() },
      }),
      'raggin/search',
    );
    assert.ok(Array.isArray(results) && results.length > 0, `no results${diagnostics()}`);
    for (const result of results) {
      assert.equal(result.version, version);
      assert.match(result.url, /^https:\/\/nextjs\.org\/docs\//);
      assert.equal(typeof result.text, 'string');
    }
    assert.ok(
      results.some((result) => /revalidatePath/.test(`${result.title} ${result.heading} ${result.text}`)),
      `no result is about revalidatePath: ${results.map((r) => r.url).join(', ')}`,
    );
  });

  test('raggin/search with a malformed query is refused with InvalidParams', async () => {
    await assert.rejects(
      connection.sendRequest('raggin/search', { query: 42 }),
      (error) => error.code === -32602 && /query/.test(error.message),
    );
  });

  test('a deprecated API gets a pulled diagnostic, and applying its quick fix clears it', async () => {
    const path = env.RAGGIN_DEPRECATED_FILE;
    const uri = pathToFileURL(path).toString();
    let text = readFileSync(path, 'utf8');
    connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'typescriptreact', version: 1, text },
    });
    const pull = () =>
      withTimeout(connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } }), 'diagnostic');

    const report = await pull();
    assert.equal(report.kind, 'full');
    const ours = report.items.filter((item) => item.source === 'raggin');
    assert.equal(ours.length, 1, `expected one raggin diagnostic: ${JSON.stringify(report.items)}${diagnostics()}`);
    const [diagnostic] = ours;
    assert.deepEqual(diagnostic.range, rangeOf(text, "'next/legacy/image'"));
    assert.equal(diagnostic.code, 'deprecated-api');
    assert.match(diagnostic.message, /next\/legacy\/image.*next\/image/);
    assert.match(diagnostic.codeDescription.href, /^https:\/\/nextjs\.org\/docs\//);
    assert.deepEqual(diagnostic.tags, [2], 'shown struck through, as VS Code does for Deprecated');

    // The light bulb: what VS Code asks for at the diagnostic, with the diagnostic in context.
    const actions = await withTimeout(
      connection.sendRequest('textDocument/codeAction', {
        textDocument: { uri },
        range: diagnostic.range,
        context: { diagnostics: [diagnostic], triggerKind: 1 },
      }),
      'codeAction',
    );
    const fixes = actions.filter((action) => action.edit);
    assert.equal(fixes.length, 1, `one quick fix with an edit: ${JSON.stringify(actions)}`);
    const [fix] = fixes;
    assert.equal(fix.kind, 'quickfix');
    assert.equal(fix.isPreferred, true);
    assert.deepEqual(fix.diagnostics, [diagnostic], 'the fix names the diagnostic it resolves');

    text = applyEdits(text, fix.edit.changes[uri]);
    assert.equal(text.split('\n')[0], "import Image from 'next/image'");
    connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text }],
    });
    const after = await pull();
    assert.deepEqual(after.items.filter((item) => item.source === 'raggin'), []);
  });

  const question = 'How do I revalidate the blog page after creating a post?';
  let first;

  test('raggin/ask streams the answer on our workDoneToken, then returns it with citations', async () => {
    const token = 'vscode-test-ask-1';
    first = await withTimeout(
      connection.sendRequest('raggin/ask', {
        question,
        textDocument: { uri: pathToFileURL(actionsPath).toString() },
        workDoneToken: token,
      }),
      'raggin/ask',
    );
    const values = progress.get(token) ?? [];
    assert.equal(values[0]?.kind, 'begin', `no begin on ${token}${diagnostics()}`);
    assert.match(values[0].title, new RegExp(version.replace(/\./g, '\\.')));
    assert.equal(values.at(-1).kind, 'end', 'the progress ends');
    const reports = values.filter((value) => value.kind === 'report');
    assert.ok(reports.length >= 1, 'at least one streamed report');
    const streamed = reports.map((value) => value.message ?? '').join('');
    assert.equal(streamed, env.RAGGIN_FAKE_REPLY, 'the reports carry exactly what the model wrote');
    assert.ok(first.answer.includes(streamed), 'the final answer contains the streamed text');
    assert.equal(first.version, version);
    assert.equal(first.model, initOptions.model);
    assert.ok(first.citations.length >= 1, 'the answer cites at least one source');
    for (const citation of first.citations) {
      assert.match(citation.url, /^https:\/\/nextjs\.org\/docs\//);
      assert.equal(citation.version, version);
      assert.ok(first.answer.includes(citation.url), `the answer lists ${citation.url}`);
    }
  });

  test('a follow-up raggin/ask sends the conversation as history', async () => {
    assert.ok(first, 'the first answer arrived');
    const token = 'vscode-test-ask-2';
    const followUp = await withTimeout(
      connection.sendRequest('raggin/ask', {
        question: 'And with a time-based interval instead?',
        history: [{ question, answer: first.generated ?? first.answer }],
        textDocument: { uri: pathToFileURL(pagePath).toString() },
        workDoneToken: token,
      }),
      'raggin/ask follow-up',
    );
    const streamed = (progress.get(token) ?? [])
      .filter((value) => value.kind === 'report')
      .map((value) => value.message ?? '')
      .join('');
    assert.equal(streamed, env.RAGGIN_FAKE_REPLY);
    assert.ok(followUp.answer.includes(streamed));
  });
});
