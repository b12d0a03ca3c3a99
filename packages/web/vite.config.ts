import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// Built into dist/ and served by the daemon at `/`, same origin as the API.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1024 },
})
