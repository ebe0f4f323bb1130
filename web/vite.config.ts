// Builds the dashboard into web/dist, which the supervisor serves. Shared types come from ../src.
// `--ssr` builds the server-render bundle instead (web/dist/ssr/render.js, loaded by
// src/server/web-page.ts and never served to browsers): React is bundled in, so the
// supervisor needs nothing from node_modules to render the board.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig(({ isSsrBuild }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  logLevel: 'warn',
  ...(isSsrBuild
    ? {
        // Without this React would pick its development build at run time (the supervisor sets no NODE_ENV).
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        ssr: { noExternal: true },
        build: {
          outDir: 'dist/ssr',
          emptyOutDir: false,
          sourcemap: false,
          rollupOptions: { input: 'src/render.tsx', output: { entryFileNames: 'render.js' } },
        },
      }
    : {
        build: {
          outDir: 'dist',
          emptyOutDir: true,
          // Served from loopback: one request per chunk costs more than the bytes it saves.
          chunkSizeWarningLimit: 2000,
          sourcemap: false,
        },
      }),
}));
