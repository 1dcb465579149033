import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The first-party web app, served by the service itself (src/http/web-app.ts) under /app/; its pages are
 * /app/… and /book/… and it calls the typed API at /trpc on the same origin.
 * `npm run dev:web` proxies /trpc and /login to a service on PORT (default 3000).
 */
const apiOrigin = `http://127.0.0.1:${process.env.PORT ?? '3000'}`;

export default defineConfig({
  root: import.meta.dirname,
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/trpc': apiOrigin, '/login': apiOrigin, '/logout': apiOrigin },
  },
});
