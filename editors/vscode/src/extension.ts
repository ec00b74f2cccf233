// RAGGIN for VS Code: a thin client of raggin-lsp. The server does all the work; this
// file starts it, streams answers into a panel and offers the commands.
import * as os from 'os';
import * as vscode from 'vscode';
import {
  CancellationToken,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { AnswerPanel } from './answerPanel';
import { Conversation } from './conversation';
import {
  AskParams,
  AskRequest,
  IndexRequest,
  ModelsRequest,
  SearchRequest,
  ServerCommands,
  VersionsRequest,
} from './protocol';
import { expander, serverLaunch } from './serverCommand';
import { explicitSettings } from './settings';
import { VersionStatus } from './status';

const DOCUMENTS = [
  { scheme: 'file', language: 'typescript' },
  { scheme: 'file', language: 'typescriptreact' },
  { scheme: 'file', language: 'javascript' },
  { scheme: 'file', language: 'javascriptreact' },
  { scheme: 'file', language: 'markdown' },
  { scheme: 'file', language: 'mdx' },
  { scheme: 'untitled', language: 'typescriptreact' },
];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('RAGGIN', { log: true });
  const status = new VersionStatus(() => client);
  const panel: AnswerPanel = new AnswerPanel(
    context.extensionUri,
    (question: string, conversation: Conversation): Promise<void> => ask(panel, question, conversation),
  );
  context.subscriptions.push(output, status, panel);

  const command = (id: string, run: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  command('raggin.askQuestion', () => askFromEditor(panel));
  command('raggin.searchDocs', () => searchDocs());
  command('raggin.indexVersion', async () => {
    await indexVersion();
    await status.refresh();
  });
  command('raggin.pickVersion', async () => {
    await pickVersion();
    await status.refresh();
  });
  command('raggin.pickModel', () => pickModel());
  command('raggin.showOutput', () => output?.show());
  command('raggin.restartServer', async () => {
    await client?.restart();
    await status.refresh();
  });

  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor(() => void status.refresh()),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      const launch = ['raggin.serverPath', 'raggin.pythonPath', 'raggin.serverArgs'];
      if (launch.some((key) => event.affectsConfiguration(key)) && client) {
        await client.stop();
        client = createClient(panel);
        await startClient(client);
      }
      if (event.affectsConfiguration('raggin')) {
        await status.refresh();
      }
    }),
  );

  client = createClient(panel);
  await startClient(client);
  await status.refresh();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

function createClient(panel: AnswerPanel): LanguageClient {
  const config = vscode.workspace.getConfiguration('raggin');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const launch = serverLaunch(
    {
      serverPath: config.get<string>('serverPath', ''),
      pythonPath: config.get<string>('pythonPath', ''),
      serverArgs: config.get<string[]>('serverArgs', []),
    },
    expander(os.homedir(), folder),
  );
  output?.info(`Starting ${launch.command} ${launch.args.join(' ')}`);
  const serverOptions: ServerOptions = {
    command: launch.command,
    args: launch.args,
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder } : {},
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENTS,
    outputChannel: output,
    initializationOptions: explicitSettings(),
    synchronize: { configurationSection: 'raggin' },
    middleware: {
      workspace: {
        configuration: (params) =>
          params.items.map((item) =>
            item.section === 'raggin'
              ? explicitSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
              : vscode.workspace.getConfiguration(item.section).get<unknown>(''),
          ),
      },
      // The server's "Ask RAGGIN" code actions stream into the panel instead of a file.
      executeCommand: async (command, args, next) => {
        if (command === ServerCommands.ask && args.length === 1 && isAskParams(args[0])) {
          panel.reveal();
          await ask(panel, args[0].question, panel.conversation, args[0]);
          return undefined;
        }
        return next(command, args);
      },
    },
  };
  return new LanguageClient('raggin', 'RAGGIN', serverOptions, clientOptions);
}

async function startClient(languageClient: LanguageClient): Promise<void> {
  try {
    await languageClient.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const choice = await vscode.window.showErrorMessage(
      `RAGGIN could not start raggin-lsp (${message}). Install it (pip install raggin-lsp) or set raggin.serverPath / raggin.pythonPath.`,
      'Open Settings',
    );
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'raggin');
    }
  }
}

function isAskParams(value: unknown): value is AskParams {
  return typeof value === 'object' && value !== null && typeof (value as AskParams).question === 'string';
}

function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) {
    return client;
  }
  void vscode.window.showWarningMessage('RAGGIN: the language server is not running (see "RAGGIN: Show server log").');
  return undefined;
}

function documentRef(): { uri: string } | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor ? { uri: editor.document.uri.toString() } : undefined;
}

async function askFromEditor(panel: AnswerPanel): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const selection = editor && !editor.selection.isEmpty ? editor.selection : undefined;
  const question = await vscode.window.showInputBox({
    title: 'RAGGIN: Ask the Next.js docs',
    prompt: selection ? 'About the selected code' : editor ? 'With the current file as context' : undefined,
    placeHolder: 'How do I revalidate a page on demand?',
    ignoreFocusOut: true,
  });
  if (!question?.trim()) {
    return;
  }
  const params: AskParams = { question: question.trim() };
  if (editor) {
    params.textDocument = { uri: editor.document.uri.toString() };
    if (selection) {
      params.range = {
        start: { line: selection.start.line, character: selection.start.character },
        end: { line: selection.end.line, character: selection.end.character },
      };
    }
  }
  panel.reveal();
  await ask(panel, params.question, panel.conversation, params);
}

/** Sends raggin/ask with our own progress token and shows the text as it streams. */
async function ask(
  panel: AnswerPanel,
  question: string,
  conversation: Conversation,
  base?: AskParams,
): Promise<void> {
  const languageClient = runningClient();
  if (!languageClient || conversation.busy) {
    return;
  }
  const token = `raggin-ask-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const params: AskParams = {
    ...(base ?? { question, textDocument: documentRef() }),
    question,
    history: conversation.history(),
    workDoneToken: token,
  };
  const turn = conversation.start(question);
  panel.reveal();
  panel.update(true);
  const listener = languageClient.onProgress(WorkDoneProgress.type, token, (value) => {
    if (value.kind === 'report' && (value as WorkDoneProgressReport).message) {
      turn.text += (value as WorkDoneProgressReport).message;
      panel.update();
    }
  });
  try {
    const cancel: CancellationToken = panel.cancellation();
    turn.result = await languageClient.sendRequest(AskRequest, params, cancel);
  } catch (error) {
    turn.error = error instanceof Error ? error.message : String(error);
  } finally {
    listener.dispose();
    turn.done = true;
    panel.update(true);
  }
}

async function searchDocs(): Promise<void> {
  const languageClient = runningClient();
  if (!languageClient) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
  const query = await vscode.window.showInputBox({
    title: 'RAGGIN: Search the Next.js docs',
    value: selected.length <= 80 ? selected.trim() : '',
    placeHolder: 'generateStaticParams',
  });
  if (!query?.trim()) {
    return;
  }
  const results = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'RAGGIN: searching' },
    () => languageClient.sendRequest(SearchRequest, { query: query.trim(), textDocument: documentRef() }),
  );
  if (results.length === 0) {
    void vscode.window.showInformationMessage(`RAGGIN: no docs section matches "${query}".`);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    results.map((result) => ({
      label: result.heading ?? result.title,
      description: `${result.title} · Next.js ${result.version}`,
      detail: result.text.replace(/\s+/g, ' ').slice(0, 200),
      url: result.url,
    })),
    { title: `Next.js ${results[0].version} docs: ${query}`, matchOnDetail: true },
  );
  if (picked) {
    await vscode.env.openExternal(vscode.Uri.parse(picked.url));
  }
}

async function indexVersion(): Promise<void> {
  const languageClient = runningClient();
  if (!languageClient) {
    return;
  }
  const versions = await languageClient.sendRequest(VersionsRequest, { textDocument: documentRef() });
  const items = versions.known
    .slice()
    .reverse()
    .map((version) => ({
      label: version,
      description: [
        version === versions.selected ? 'this project' : '',
        versions.indexed.includes(version) ? 'indexed' : '',
        version === versions.latest ? 'latest' : '',
      ]
        .filter(Boolean)
        .join(' · '),
    }));
  const selected = items.find((item) => item.label === versions.selected);
  if (selected) {
    items.splice(items.indexOf(selected), 1);
    items.unshift(selected);
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'RAGGIN: Index which Next.js version?' });
  if (!picked) {
    return;
  }
  const token = `raggin-index-${Date.now()}`;
  await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `RAGGIN: indexing the Next.js ${picked.label} docs`,
      cancellable: true,
    },
    async (progress, cancel) => {
      let last = 0;
      const listener = languageClient.onProgress(WorkDoneProgress.type, token, (value) => {
        if (value.kind === 'report') {
          const report = value as WorkDoneProgressReport;
          const increment = report.percentage !== undefined ? report.percentage - last : undefined;
          last = report.percentage ?? last;
          progress.report({ message: report.message, increment });
        }
      });
      try {
        const result = await languageClient.sendRequest(
          IndexRequest,
          { version: picked.label, workDoneToken: token },
          cancel,
        );
        void vscode.window.showInformationMessage(`RAGGIN: the Next.js ${result.version} docs are indexed.`);
      } finally {
        listener.dispose();
      }
    },
  );
}

async function pickVersion(): Promise<void> {
  const languageClient = runningClient();
  if (!languageClient) {
    return;
  }
  const versions = await languageClient.sendRequest(VersionsRequest, { textDocument: documentRef() });
  const items: vscode.QuickPickItem[] = [
    { label: 'auto', description: 'detect from node_modules/next for each document' },
    ...versions.indexed
      .slice()
      .reverse()
      .map((version) => ({ label: version, description: 'indexed' })),
    ...versions.known
      .slice()
      .reverse()
      .filter((version) => !versions.indexed.includes(version))
      .map((version) => ({ label: version, description: 'not indexed yet' })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `RAGGIN: Next.js docs version (now ${versions.selected ?? 'none'}, ${versions.selectedBecause})`,
  });
  if (picked) {
    await vscode.commands.executeCommand(ServerCommands.selectVersion, picked.label);
  }
}

async function pickModel(): Promise<void> {
  const languageClient = runningClient();
  if (!languageClient) {
    return;
  }
  let models;
  try {
    models = await languageClient.sendRequest(ModelsRequest, {});
  } catch (error) {
    void vscode.window.showErrorMessage(`RAGGIN: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  if (models.models.length === 0) {
    void vscode.window.showWarningMessage(
      `RAGGIN: Ollama at ${models.host} has no models. Pull one, e.g. "ollama pull qwen2.5-coder:7b".`,
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(
    models.models.map((name) => ({ label: name, description: name === models.configured ? 'current' : '' })),
    { title: `RAGGIN: Ollama model (${models.host})` },
  );
  if (picked) {
    const target = vscode.workspace.workspaceFolders
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('raggin').update('model', picked.label, target);
  }
}
