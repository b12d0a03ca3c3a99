import { realAgentSuite } from './fixtures/real-agent-suite.js'

// The real Codex CLI (pinned in test-kit/agent-clis.json), through a custom model_provider.
realAgentSuite('codex')
