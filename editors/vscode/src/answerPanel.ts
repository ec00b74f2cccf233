// The answer panel: a webview that shows the conversation while answers stream in.
import * as vscode from 'vscode';
import { randomBytes } from 'crypto';
import { Conversation, Turn } from './conversation';
import { escapeHtml, renderAnswer } from './render';

const RENDER_INTERVAL_MS = 80;

type FromWebview =
  | { type: 'open'; href: string }
  | { type: 'ask'; question: string }
  | { type: 'stop' }
  | { type: 'clear' };

export type Asker = (question: string, conversation: Conversation) => Promise<void>;

export class AnswerPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopper: vscode.CancellationTokenSource | undefined;
  readonly conversation = new Conversation();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly asker: Asker,
  ) {}

  /** Shows the panel (creating it if needed), keeping the conversation. */
  reveal(): void {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
      return;
    }
    this.panel = vscode.window.createWebviewPanel(
      'raggin.answer',
      'RAGGIN',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
      },
    );
    this.panel.webview.html = this.shell(this.panel.webview);
    this.panel.webview.onDidReceiveMessage((message: FromWebview) => this.onMessage(message));
    this.panel.onDidDispose(() => {
      this.panel = undefined;
      this.stop();
    });
    this.update(true);
  }

  /** A token the panel's Stop button cancels; one answer streams at a time. */
  cancellation(): vscode.CancellationToken {
    this.stopper?.dispose();
    this.stopper = new vscode.CancellationTokenSource();
    return this.stopper.token;
  }

  stop(): void {
    this.stopper?.cancel();
  }

  /** Re-renders at most every RENDER_INTERVAL_MS while text streams in. */
  update(now = false): void {
    if (now) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      this.post();
      return;
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.post();
      }, RENDER_INTERVAL_MS);
    }
  }

  dispose(): void {
    this.stop();
    this.stopper?.dispose();
    this.panel?.dispose();
  }

  private post(): void {
    if (!this.panel) {
      return;
    }
    const html = this.conversation.turns.map(turnHtml).join('\n');
    void this.panel.webview.postMessage({ type: 'render', html, busy: this.conversation.busy });
  }

  private onMessage(message: FromWebview): void {
    switch (message.type) {
      case 'open': {
        const uri = vscode.Uri.parse(message.href, true);
        if (uri.scheme === 'https' || uri.scheme === 'http') {
          void vscode.env.openExternal(uri);
        }
        break;
      }
      case 'ask':
        if (message.question.trim() && !this.conversation.busy) {
          void this.asker(message.question.trim(), this.conversation);
        }
        break;
      case 'stop':
        this.stop();
        break;
      case 'clear':
        if (!this.conversation.busy) {
          this.conversation.clear();
          this.update(true);
        }
        break;
    }
  }

  private shell(webview: vscode.Webview): string {
    const nonce = randomBytes(16).toString('base64');
    const media = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', name));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} https: data:`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${media('panel.css').toString()}">
<title>RAGGIN</title>
</head>
<body>
<main id="conversation" aria-live="polite"></main>
<form id="ask">
  <textarea id="question" rows="2" placeholder="Ask a follow-up question (Enter to send, Shift+Enter for a new line)"></textarea>
  <div class="buttons">
    <button type="submit" id="send">Ask</button>
    <button type="button" id="stop" class="secondary">Stop</button>
    <button type="button" id="clear" class="secondary">New conversation</button>
  </div>
</form>
<script nonce="${nonce}" src="${media('panel.js').toString()}"></script>
</body>
</html>`;
  }
}

function turnHtml(turn: Turn): string {
  const question = `<div class="question">${escapeHtml(turn.question)}</div>`;
  let body: string;
  if (turn.result !== undefined) {
    body = renderAnswer(turn.result.answer, turn.result.citations);
  } else if (turn.text) {
    body = renderAnswer(turn.text);
  } else {
    body = turn.done ? '' : '<p class="waiting">Searching the docs…</p>';
  }
  const error = turn.error ? `<p class="error">${escapeHtml(turn.error)}</p>` : '';
  const meta =
    turn.result !== undefined
      ? `<div class="meta">Next.js ${escapeHtml(turn.result.version)} docs · ${escapeHtml(
          turn.result.model ?? 'no model (retrieval only)',
        )}</div>`
      : '';
  const state = turn.done ? 'done' : 'streaming';
  return `<section class="turn ${state}">${question}<div class="answer">${body}</div>${error}${meta}</section>`;
}
