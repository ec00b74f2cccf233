// What the status bar item says about the active document's Next.js version: its number,
// and how it is searched while its dense vectors are still being added
// ("lexical only, dense 40%"). Pure, so the tests run it without VS Code.
import type { VersionsResult } from './protocol';

export interface VersionLabel {
  text: string;
  /** Searchable: indexed, or searchable lexically while indexing goes on. */
  searchable: boolean;
  /** How the version is searched while it is being indexed, else null. */
  stage: string | null;
}

export function versionLabel(versions: VersionsResult): VersionLabel {
  const version = versions.selected;
  const stage = (versions.stages ?? []).find((item) => item.version === version)?.stage ?? null;
  const searchable = version !== null && (versions.indexed.includes(version) || stage !== null);
  const icon = stage !== null ? '$(sync~spin)' : searchable ? '$(book)' : '$(warning)';
  const suffix = stage !== null ? ` (${stage})` : '';
  return { text: `${icon} Next.js ${version ?? '?'}${suffix}`, searchable, stage };
}
