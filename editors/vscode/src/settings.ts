// The `raggin` settings the server reads, as the user set them (not VS Code's defaults).
import * as vscode from 'vscode';

/** Keys of the server's settings section; the extension-only keys are left out. */
export const SERVER_KEYS = [
  'nextVersion',
  'router',
  'profile',
  'modelPath',
  'qdrantPath',
  'qdrantUrl',
  'qdrantApiKey',
  'ollamaHost',
  'model',
  'generation',
  'topK',
  'fusion',
  'retrievalStages',
  'rerankerModel',
  'historyTurns',
  'firstTokenTimeout',
  'autoIndex',
  'diagnostics',
] as const;

/**
 * Only the values the user actually set, most specific scope first.
 *
 * VS Code answers `workspace/configuration` with every default filled in; the server gives
 * the client's values the highest precedence, so defaults sent from here would hide the
 * project's `.raggin.yaml` and the user's `~/.config/raggin/config.yaml`.
 */
export function explicitSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration('raggin', scope);
  const values: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const inspected = config.inspect(key);
    if (inspected === undefined) {
      continue;
    }
    const value =
      inspected.workspaceFolderValue ?? inspected.workspaceValue ?? inspected.globalValue;
    if (value !== undefined && value !== null && value !== '') {
      values[key] = value;
    }
  }
  return values;
}
