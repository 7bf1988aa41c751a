import { constants } from 'node:zlib';

import vue from '@vitejs/plugin-vue';
import { defineConfig, loadEnv } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';

// The service serves dist/ at / (src/common/static-console.ts); in development Vite
// forwards the API to a running service: http://localhost:3000, or API_URL.
export default defineConfig(({ mode }) => {
  const api = loadEnv(mode, '.', 'API_').API_URL ?? 'http://localhost:3000';
  return {
    base: '/',
    // Brotli and gzip copies (name.br, name.gz) of the text files: compressed once here, the service
    // sends them to browsers that accept them (static-console.ts) instead of compressing on every
    // request. A copy no smaller than its file is not written. Brotli at quality 9, not 11: 11 takes
    // about ten times as long for a few per cent less (docs/benchmarks.md).
    plugins: [
      vue(),
      compression({
        algorithms: [
          defineAlgorithm('brotliCompress', { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
          defineAlgorithm('gzip', { level: 9 }),
        ],
      }),
    ],
    resolve: { alias: { '@': new URL('./src', import.meta.url).pathname } },
    server: {
      proxy: {
        '/sys': { target: api, changeOrigin: true },
        '/auth': { target: api, changeOrigin: true },
      },
    },
    build: { outDir: 'dist', chunkSizeWarningLimit: 1500 },
  };
});
