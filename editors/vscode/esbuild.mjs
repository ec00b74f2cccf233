// Bundles the extension and its runtime dependencies into out/extension.js, so the .vsix
// ships no node_modules; `vscode` is provided by the editor.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'out/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  sourcemap: true,
  minify: process.argv.includes('--minify'),
  logLevel: 'warning',
});
