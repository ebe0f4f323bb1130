// The ESLint rule that holds every import of src/ and web/ to the layer table (scripts/layers.mjs).
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KNOWN_REACHES, breach } from './layers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const known = new Set(KNOWN_REACHES.map((r) => `${r.file} -> ${r.target}`));

/** A test may set up from any layer; the rule holds the product's code. */
const exempt = (file) => /\.test\.tsx?$/.test(file);

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the layer table in scripts/layers.mjs' },
    schema: [],
  },
  create(context) {
    const file = relative(root, context.filename).split('\\').join('/');
    if (exempt(file)) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = relative(root, resolve(dirname(join(root, file)), spec))
        .split('\\')
        .join('/');
      const why = breach(file, target);
      if (!why) return;
      const folder = target.startsWith('web/') ? 'web' : target.split('/')[1];
      if (known.has(`${file} -> ${folder}`)) return;
      context.report({
        node,
        message: `${why}. See the layer table in scripts/layers.mjs (CONTRIBUTING.md, "Dependency direction").`,
      });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};
