// Nest 12 ships ESM-only packages; @swc/jest compiles them (and our TS) to CommonJS.
const esm = [
  '@nestjs',
  'file-type',
  'load-esm',
  'uid',
  'cookie',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  'content-disposition',
  // openapi-typescript (tools/api-types.ts, its drift test) requires these ESM-only packages.
  'openapi-typescript',
  'parse-json',
  'index-to-position',
  'change-case',
  'supports-color',
];
const swc = (syntax) => [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax, decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
module.exports = {
  testEnvironment: 'node',
  testRegex: '(\\.spec|\\.e2e-spec)\\.ts$',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/client/src'],
  transform: { '^.+\\.ts$': swc('typescript'), '^.+\\.m?js$': swc('ecmascript') },
  transformIgnorePatterns: [`/node_modules/(?!(${esm.join('|')})/)`],
  testTimeout: 30000,
  // Tags the run's Redis keys, and fails the run when a suite leaves any (test/support/redis-run.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
};
