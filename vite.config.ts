import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard (web/) is built into dist/web and served by the API process itself (src/web.ts).
export default defineConfig({
  root: 'web',
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: { proxy: { '/v1': 'http://127.0.0.1:3000' } },
});
