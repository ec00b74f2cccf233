// Answers as HTML: Markdown through markdown-it (raw HTML off), with `[n]` citation markers
// turned into links to the cited docs page.
import MarkdownIt from 'markdown-it';
import type { Citation } from './protocol';

type Token = ReturnType<MarkdownIt['parseInline']>[number];
type TokenClass = new (type: string, tag: string, nesting: -1 | 0 | 1) => Token;

const MARKER = /\[(\d{1,3})\]/g;

function linkCitations(md: MarkdownIt, citations: readonly Citation[]): void {
  const byNumber = new Map(citations.map((citation) => [citation.n, citation]));
  md.core.ruler.push('raggin_citations', (state) => {
    const TokenCtor = state.Token as unknown as TokenClass;
    for (const block of state.tokens) {
      if (block.type !== 'inline' || !block.children) {
        continue;
      }
      const children: Token[] = [];
      let insideLink = 0;
      for (const token of block.children) {
        if (token.type === 'link_open') insideLink += 1;
        if (token.type === 'link_close') insideLink -= 1;
        if (token.type !== 'text' || insideLink > 0 || !MARKER.test(token.content)) {
          children.push(token);
          continue;
        }
        MARKER.lastIndex = 0;
        let last = 0;
        for (const match of token.content.matchAll(MARKER)) {
          const citation = byNumber.get(Number(match[1]));
          if (citation === undefined || !md.validateLink(citation.url)) {
            continue;
          }
          const start = match.index ?? 0;
          if (start > last) {
            const text = new TokenCtor('text', '', 0);
            text.content = token.content.slice(last, start);
            children.push(text);
          }
          const open = new TokenCtor('link_open', 'a', 1);
          open.attrs = [
            ['href', citation.url],
            ['title', `${citation.title} (Next.js ${citation.version})`],
            ['class', 'citation'],
          ];
          const label = new TokenCtor('text', '', 0);
          label.content = match[0];
          children.push(open, label, new TokenCtor('link_close', 'a', -1));
          last = start + match[0].length;
        }
        if (last < token.content.length) {
          const rest = new TokenCtor('text', '', 0);
          rest.content = token.content.slice(last);
          children.push(rest);
        }
      }
      block.children = children;
    }
  });
}

/** HTML for an answer; model output is untrusted, so raw HTML in it is shown as text. */
export function renderAnswer(markdown: string, citations: readonly Citation[] = []): string {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
  linkCitations(md, citations);
  return md.render(markdown);
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
