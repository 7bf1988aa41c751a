// Lets plain `node` run the TypeScript of tools/ and src/ without a build (npm run api:types):
// each .ts file is compiled on require by @swc/core with the settings jest.config.js uses
// (decorator metadata on, CommonJS out). Nest 12's ESM packages load through Node's require(esm).
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
