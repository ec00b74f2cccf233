// Which command starts raggin-lsp: pure, so the rules are easy to read and to test.
import * as path from 'path';

export interface ServerLaunch {
  command: string;
  args: string[];
}

export interface LaunchSettings {
  serverPath: string;
  pythonPath: string;
  serverArgs: string[];
}

/**
 * `raggin.serverPath` wins, then `raggin.pythonPath` (as `python -m raggin_lsp serve`),
 * then `raggin-lsp` found on PATH. `~` and `${workspaceFolder}` are expanded.
 */
export function serverLaunch(
  settings: LaunchSettings,
  expand: (value: string) => string,
): ServerLaunch {
  const extra = settings.serverArgs.map(expand);
  if (settings.serverPath.trim()) {
    return { command: expand(settings.serverPath.trim()), args: ['serve', ...extra] };
  }
  if (settings.pythonPath.trim()) {
    return { command: expand(settings.pythonPath.trim()), args: ['-m', 'raggin_lsp', 'serve', ...extra] };
  }
  return { command: 'raggin-lsp', args: ['serve', ...extra] };
}

export function expander(home: string, workspaceFolder: string | undefined): (value: string) => string {
  return (value: string) => {
    let result = value;
    if (result === '~' || result.startsWith('~/')) {
      result = path.join(home, result.slice(1));
    }
    if (workspaceFolder !== undefined) {
      result = result.split('${workspaceFolder}').join(workspaceFolder);
    }
    return result;
  };
}
