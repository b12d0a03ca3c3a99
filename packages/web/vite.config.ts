import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { VitePWA } from 'vite-plugin-pwa'

/** Dark slate, the icons' tile: the installed app's title bar and splash screen. */
const THEME = '#0f172a'

// Built into dist/ and served by the daemon at `/`, same origin as the API.
export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    // Installable: a manifest and a service worker that precaches the built shell only.
    VitePWA({
      registerType: 'autoUpdate',
      // A plain deferred script registers the worker: nothing added to the app's bundle.
      injectRegister: 'script-defer',
      // The manifest is behind the token gate like every page: its fetch must carry the login cookie.
      useCredentials: true,
      // The icons are in the precache already (globPatterns).
      includeManifestIcons: false,
      manifest: {
        name: 'svc: coding agents',
        short_name: 'svc',
        description: 'Your coding agents, their terminals, prompts and tasks',
        start_url: '/',
        scope: '/',
        display: 'standalone',
        theme_color: THEME,
        background_color: THEME,
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        // The shell: the built pages, scripts, styles and icons. Nothing else is ever put
        // in a cache: API answers, event and stream sockets and web tabs go to the network.
        globPatterns: ['**/*.{html,js,css,svg,png}'],
        // A page load asks the daemon first, so its answer (a login's cookie, the refusal
        // without one, a rebuilt page) is what the browser gets; only when the daemon
        // cannot be reached does the precached page stand in. Without the directory index
        // the precache would answer `/` itself, before the network.
        directoryIndex: null,
        navigateFallback: null,
        runtimeCaching: [
          {
            urlPattern: ({ request, url }) => request.mode === 'navigate' && !url.pathname.startsWith('/v1/'),
            handler: 'NetworkOnly',
            options: { precacheFallback: { fallbackURL: 'index.html' } },
          },
        ],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
      },
    }),
  ],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1024 },
})
