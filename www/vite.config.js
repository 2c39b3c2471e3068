import { defineConfig } from 'vite';

// Relative base so www/dist works from any path (the CLI serves it at /, python -m http.server too).
export default defineConfig({
  base: './',
  build: { outDir: 'dist', target: 'es2022', chunkSizeWarningLimit: 1024 },
  worker: { format: 'es' },
  // The gallery reads ../examples.
  server: { fs: { allow: ['..'] } },
});
