// What the status bar item says about the active document's Next.js version: its number,
// how it is searched while its dense vectors are still being added
// ("lexical only, dense 40%"), and the profile answering it while that is not the
// configured one ("light" until the bge-m3 index is complete). Pure, so the tests run it
// without VS Code.
import type { VersionsResult } from './protocol';

export interface VersionLabel {
  text: string;
  /** Searchable: indexed, or searchable lexically while indexing goes on. */
  searchable: boolean;
  /** How the version is searched while it is being indexed, else null. */
  stage: string | null;
  /** The profile answering while the configured one's index is not complete, else null. */
  fallback: string | null;
}

export function versionLabel(versions: VersionsResult): VersionLabel {
  const version = versions.selected;
  const answer = (versions.answering ?? []).find((item) => item.version === version);
  const listed = (versions.stages ?? []).find((item) => item.version === version)?.stage ?? null;
  const answered = answer !== undefined && answer.stage !== 'hybrid' ? answer.stage : null;
  const stage = answer !== undefined ? answered : listed;
  const fallback = answer !== undefined && versions.profile !== undefined && answer.profile !== versions.profile ? answer.profile : null;
  const searchable = version !== null && (versions.indexed.includes(version) || answer !== undefined || stage !== null);
  const icon = stage !== null ? '$(sync~spin)' : searchable ? '$(book)' : '$(warning)';
  const how = [fallback, stage].filter((part) => part !== null).join(', ');
  const suffix = how ? ` (${how})` : '';
  return { text: `${icon} Next.js ${version ?? '?'}${suffix}`, searchable, stage, fallback };
}
