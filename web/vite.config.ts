// Builds the dashboard into web/dist, which the supervisor serves. Shared types come from ../src.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Served from loopback: one request per chunk costs more than the bytes it saves.
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
  },
});
