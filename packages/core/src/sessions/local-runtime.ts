import type { CheckedRequestOf } from '@svc/protocol'
import type { Tmux } from '../infra/tmux.js'
import type { Handoffs } from './handoff.js'
import type { Leases } from './leases.js'
import type { Lifecycle } from './lifecycle.js'
import { liveOrRefuse, type Prompts } from './prompts.js'
import type { SessionRecord } from './record.js'
import type { Panes, Runtime } from './runtime.js'
import type { SessionRef, SessionTable } from './table.js'
import { closeTab, moveTab, openTab, renameTab, tabKindOf } from './tabs.js'
import { preview } from './terminal.js'
import type { Req } from '../wire.js'


export interface LocalParts {
  table: SessionTable
  tmux: Tmux
  panes: Panes
  leases: Leases
  lifecycle: Lifecycle
  prompts: Prompts
  handoffs: Handoffs
}

/** Sessions that run here: in tmux, in a git worktree of the repository. */
export class LocalRuntime implements Runtime {
  constructor(private readonly parts: LocalParts) {}

  sendPrompt(request: CheckedRequestOf<'SendPrompt'>): Promise<Req<'SendPromptResponse'>> {
    return this.parts.prompts.send(request)
  }

  deliverPrompt(ref: SessionRef, request: CheckedRequestOf<'DeliverPrompt'>): Promise<Req<'DeliverPromptResponse'>> {
    return this.parts.prompts.deliverExisting(ref, request)
  }

  preview(request: Req<'PreviewRequest'>): Promise<Req<'PreviewResponse'>> {
    return preview(this.parts.table, this.parts.tmux, request)
  }

  async pauseStatusPoll(record: SessionRecord, holder: string, until: number): Promise<void> {
    this.parts.leases.hold(record.id, holder, until)
  }

  async resumeStatusPoll(record: SessionRecord, holder: string): Promise<void> {
    this.parts.leases.release(record.id, holder)
  }

  /** A change to one session's tab roster, alone in its queue; saved only when the roster really changed. */
  private changeTabs<T>(ref: SessionRef, change: (record: SessionRecord) => Promise<T> | T): Promise<T> {
    const { table } = this.parts
    return table.operate(ref, async (record) => {
      const before = JSON.stringify(record.tabs)
      const result = await change(record)
      if (JSON.stringify(record.tabs) !== before) {
        table.touch(record)
        await table.save(record)
      }
      return result
    })
  }

  createTab(request: Req<'CreateTabRequest'>): Promise<Req<'CreateTabResponse'>> {
    const kind = tabKindOf(request)
    return this.changeTabs(request, (record) => {
      liveOrRefuse(record)
      return openTab(record, kind, request, this.parts.panes)
    })
  }

  closeTab(request: Req<'CloseTabRequest'>): Promise<string> {
    return this.changeTabs(request, (record) => closeTab(record, request, this.parts.panes))
  }

  renameTab(request: CheckedRequestOf<'RenameTab'>): Promise<string> {
    return this.changeTabs(request, (record) => renameTab(record, request))
  }

  reorderTab(request: CheckedRequestOf<'ReorderTab'>): Promise<{ name: string; index: number }> {
    return this.changeTabs(request, (record) => moveTab(record, request))
  }

  kill(request: Req<'KillSessionRequest'>): Promise<void> {
    return this.parts.lifecycle.kill(request)
  }

  async archive(ref: SessionRef): Promise<Req<'ArchiveSessionResponse'>> {
    return { ok: true, archived_path: await this.parts.lifecycle.archive(ref) }
  }

  restoreArchived(ref: SessionRef): Promise<string> {
    return this.parts.lifecycle.restoreArchived(ref)
  }

  restoreSession(request: Req<'RestoreSessionRequest'>): Promise<void> {
    return this.parts.lifecycle.restoreSession(request)
  }

  resumeFromLimit(ref: SessionRef): Promise<void> {
    return this.parts.handoffs.resume(ref)
  }

  handoff(request: Req<'HandoffSessionRequest'>): Promise<Req<'HandoffSessionResponse'>> {
    return this.parts.handoffs.handoff(request)
  }
}
