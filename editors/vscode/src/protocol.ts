// The raggin/* requests of raggin-lsp (see docs/protocol.md), as typed request types.
import { ProgressToken, RequestType } from 'vscode-languageclient';

export interface TextDocumentRef {
  uri: string;
}

export interface Citation {
  n: number;
  url: string;
  title: string;
  version: string;
}

export interface HistoryTurn {
  question: string;
  answer: string;
}

export interface AskParams {
  question: string;
  textDocument?: TextDocumentRef;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  history?: HistoryTurn[];
  version?: string;
  router?: 'app' | 'pages';
  model?: string;
  workDoneToken?: ProgressToken;
}

export interface AskResult {
  answer: string;
  generated?: string;
  citations: Citation[];
  model: string | null;
  version: string;
  usedLlm?: boolean;
  notice?: string;
  timings: Record<string, number>;
}

export interface SearchParams {
  query: string;
  textDocument?: TextDocumentRef;
  version?: string;
  topK?: number;
}

export interface SearchResult {
  url: string;
  version: string;
  title: string;
  heading: string | null;
  headingPath: string[];
  text: string;
  router: string | null;
  score: number;
}

export interface VersionStage {
  version: string;
  /** How searches of the version are answered while it is indexed: "lexical only, dense 40%". */
  stage: string;
}

export interface VersionAnswer extends VersionStage {
  /** The embedding profile whose index answers the version now ("light" until bge-m3's is complete). */
  profile: string;
}

export interface VersionsResult {
  known: string[];
  indexed: string[];
  /** Versions searchable before they are complete (their dense vectors are being added). */
  stages?: VersionStage[];
  /** The configured embedding profile. */
  profile?: string;
  /** Every searchable version with the profile and stage answering it now. */
  answering?: VersionAnswer[];
  latest: string | null;
  selected: string | null;
  selectedBecause: string;
  router: string | null;
  override: string | null;
}

export interface IndexParams {
  version?: string;
  textDocument?: TextDocumentRef;
  workDoneToken?: ProgressToken;
}

export interface IndexResult {
  version: string;
  indexed: string[];
}

export interface ModelsResult {
  host: string;
  configured: string;
  models: string[];
}

export const AskRequest = new RequestType<AskParams, AskResult, void>('raggin/ask');
export const SearchRequest = new RequestType<SearchParams, SearchResult[], void>('raggin/search');
export const VersionsRequest = new RequestType<{ textDocument?: TextDocumentRef }, VersionsResult, void>(
  'raggin/versions',
);
export const IndexRequest = new RequestType<IndexParams, IndexResult, void>('raggin/index');
export const ModelsRequest = new RequestType<Record<string, never>, ModelsResult, void>('raggin/models');

/** The server's own workspace/executeCommand commands (distinct from this extension's). */
export const ServerCommands = {
  ask: 'raggin.ask',
  search: 'raggin.search',
  index: 'raggin.index',
  selectVersion: 'raggin.selectVersion',
} as const;
