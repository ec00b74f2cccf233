// The answer panel's pure parts, bundled from src/ with esbuild: Markdown rendering with
// citation links, and the history a follow-up question sends.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

const require = createRequire(import.meta.url);

async function load(entry) {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`../src/${entry}`, import.meta.url))],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    logLevel: 'silent',
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', result.outputFiles[0].text)(module, module.exports, require);
  return module.exports;
}

const { renderAnswer } = await load('render.ts');
const { Conversation } = await load('conversation.ts');
const { versionLabel } = await load('statusText.ts');
const citations = [
  { n: 1, url: 'https://nextjs.org/docs/app/api-reference/functions/revalidatePath', title: 'revalidatePath', version: '16.2.0' },
  { n: 2, url: 'javascript:alert(1)', title: 'evil', version: '16.2.0' },
];

describe('renderAnswer', () => {
  test('turns [n] markers into links to the cited page', () => {
    const html = renderAnswer('Call `revalidatePath` after saving [1].', citations);
    assert.match(html, /<a href="https:\/\/nextjs\.org\/docs\/app\/api-reference\/functions\/revalidatePath"[^>]*class="citation">\[1\]<\/a>/);
    assert.match(html, /title="revalidatePath \(Next\.js 16\.2\.0\)"/);
  });

  test('leaves markers in code, unknown numbers and unsafe URLs as text', () => {
    const html = renderAnswer('In code `x[1]`, unknown [7], unsafe [2].', citations);
    assert.match(html, /<code>x\[1\]<\/code>/);
    assert.match(html, /unknown \[7\]/);
    assert.match(html, /unsafe \[2\]/);
    assert.doesNotMatch(html, /javascript:/);
  });

  test('shows raw HTML from the model as text', () => {
    const html = renderAnswer('<img src=x onerror=alert(1)> **bold**');
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img/);
    assert.match(html, /<strong>bold<\/strong>/);
  });
});

describe('Conversation', () => {
  test('sends only answered turns as history, with the generated text', () => {
    const conversation = new Conversation();
    const first = conversation.start('How do I revalidate?');
    first.result = { answer: 'Use it [1].\n\n**Sources**', generated: 'Use it [1].', citations: [], model: 'm', version: '16.2.0', timings: {} };
    first.done = true;
    const failed = conversation.start('Broken?');
    failed.error = 'offline';
    failed.done = true;
    conversation.start('Still streaming');
    assert.deepEqual(conversation.history(), [{ question: 'How do I revalidate?', answer: 'Use it [1].' }]);
    assert.equal(conversation.busy, true);
  });
});

describe('versionLabel', () => {
  const versions = { known: [], indexed: ['16.2.0'], latest: null, selectedBecause: 'package.json', router: null, override: null };

  test('shows the stage of a version searched lexically while its dense vectors are added', () => {
    const label = versionLabel({ ...versions, selected: '16.4.6', stages: [{ version: '16.4.6', stage: 'lexical only, dense 40%' }] });
    assert.equal(label.text, '$(sync~spin) Next.js 16.4.6 (lexical only, dense 40%)');
    assert.equal(label.searchable, true);
  });

  test('shows the light profile answering until the configured profile\'s index is complete', () => {
    const answering = [{ version: '16.4.6', profile: 'light', stage: 'lexical only, dense 40%' }];
    const lexical = versionLabel({ ...versions, selected: '16.4.6', profile: 'bge-m3', answering });
    assert.equal(lexical.text, '$(sync~spin) Next.js 16.4.6 (light, lexical only, dense 40%)');
    assert.equal(lexical.fallback, 'light');
    const light = versionLabel({ ...versions, selected: '16.4.6', profile: 'bge-m3', answering: [{ ...answering[0], stage: 'hybrid' }] });
    assert.equal(light.text, '$(book) Next.js 16.4.6 (light)');
    const upgraded = versionLabel({ ...versions, selected: '16.4.6', profile: 'bge-m3', answering: [{ version: '16.4.6', profile: 'bge-m3', stage: 'hybrid' }] });
    assert.equal(upgraded.text, '$(book) Next.js 16.4.6');
    assert.equal(upgraded.fallback, null);
  });

  test('shows an indexed version plainly and an unindexed one with a warning', () => {
    assert.equal(versionLabel({ ...versions, selected: '16.2.0', stages: [] }).text, '$(book) Next.js 16.2.0');
    const missing = versionLabel({ ...versions, selected: '16.4.6' });
    assert.equal(missing.text, '$(warning) Next.js 16.4.6');
    assert.equal(missing.searchable, false);
  });
});
