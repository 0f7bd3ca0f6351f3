import { defineConfig } from "vite";

// The build is committed (dist/) and embedded in the Go binary: it must be the same bytes on
// every machine, so no timestamps, no source maps with absolute paths.
export default defineConfig({
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact", legalComments: "none" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: true,
    assetsInlineLimit: 0,
  },
});
