import { X } from 'lucide-react'
import { Dialog } from 'radix-ui'
import { ui } from './ui'
import { SHORTCUTS } from '../keyboard'

/** The `?` overlay: every shortcut the page takes, as keyboard.ts defines them. */
export function Shortcuts({ open, setOpen }: { open: boolean; setOpen: (open: boolean) => void }) {
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Portal>
        <Dialog.Overlay className={ui.overlay} />
        <Dialog.Content className={ui.panel}>
          <div className="mb-3 flex items-center justify-between">
            <Dialog.Title className="text-lg font-semibold">Keyboard shortcuts</Dialog.Title>
            <Dialog.Close aria-label="close" className="rounded p-1 text-muted hover:text-fg">
              <X aria-hidden className="size-4" />
            </Dialog.Close>
          </div>
          <Dialog.Description className="mb-3 text-sm text-muted">Not while typing in a field, except Esc; in a terminal, only Ctrl+].</Dialog.Description>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
            {SHORTCUTS.map(([keys, what]) => (
              <div key={what} className="contents">
                <dt className="flex items-center gap-1 text-muted">
                  {keys.map((key, index) => (
                    <span key={key} className="contents">
                      {index > 0 ? 'or' : null}
                      <kbd className="rounded border border-line bg-surface px-1.5 font-mono text-fg">{key}</kbd>
                    </span>
                  ))}
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  )
}
