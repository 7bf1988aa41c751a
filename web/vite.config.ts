import vue from '@vitejs/plugin-vue';
import { defineConfig, loadEnv } from 'vite';

// The service serves dist/ at / (src/common/static-console.ts); in development Vite
// forwards the API to a running service: http://localhost:3000, or API_URL.
export default defineConfig(({ mode }) => {
  const api = loadEnv(mode, '.', 'API_').API_URL ?? 'http://localhost:3000';
  return {
    base: '/',
    plugins: [vue()],
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
