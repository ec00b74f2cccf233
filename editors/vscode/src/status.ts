// The status bar item: the Next.js docs version used for the active document.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { VersionsRequest } from './protocol';
import { versionLabel } from './statusText';

// While a version is searched before its dense vectors are in, how often to ask again.
const STAGE_REFRESH_MS = 5000;

export class VersionStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.item.command = 'raggin.pickVersion';
    this.item.name = 'RAGGIN docs version';
    this.item.text = '$(book) Next.js …';
    this.item.tooltip = 'RAGGIN: starting the server';
    this.item.show();
  }

  /** Asks the server which version the active document uses (latest call wins). */
  async refresh(): Promise<void> {
    const client = this.client();
    if (!client || !client.isRunning()) {
      return;
    }
    const generation = ++this.generation;
    const editor = vscode.window.activeTextEditor;
    const params = editor ? { textDocument: { uri: editor.document.uri.toString() } } : {};
    try {
      const versions = await client.sendRequest(VersionsRequest, params);
      if (generation !== this.generation) {
        return;
      }
      const version = versions.selected;
      const label = versionLabel(versions);
      this.item.text = label.text;
      const lines = [
        version ? `RAGGIN answers from the Next.js ${version} docs (${versions.selectedBecause}).` : 'No Next.js version found for this document.',
        label.stage ? `Searched ${label.stage} while its dense vectors are being added.` : '',
        label.fallback ? `Answered from the ${label.fallback} index until the ${versions.profile} index is complete.` : '',
        label.searchable || !version ? '' : 'This version is not indexed yet: run "RAGGIN: Index version".',
        'Click to choose another version.',
      ];
      this.item.tooltip = lines.filter(Boolean).join('\n');
      if (label.stage || label.fallback) {
        this.refreshSoon(); // the stage changes as the dense vectors arrive, the profile once upgraded
      }
    } catch (error) {
      if (generation === this.generation) {
        this.item.text = '$(error) Next.js';
        this.item.tooltip = `RAGGIN: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  }

  private refreshSoon(): void {
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.refresh();
      }, STAGE_REFRESH_MS);
    }
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.item.dispose();
  }
}
