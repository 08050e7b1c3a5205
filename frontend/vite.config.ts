/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

// The Go side embeds frontend/dist; a committed dist/.gitkeep keeps that
// embed (and `go vet ./...`) working on a fresh clone, so restore it after
// Vite empties the folder.
function keepGitkeep(): Plugin {
  return {
    name: 'weft-keep-gitkeep',
    apply: 'build',
    closeBundle() {
      writeFileSync(resolve(__dirname, 'dist/.gitkeep'), '');
    },
  };
}

export default defineConfig({
  plugins: [react(), keepGitkeep()],
  build: {
    chunkSizeWarningLimit: 3000,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    globals: true,
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
