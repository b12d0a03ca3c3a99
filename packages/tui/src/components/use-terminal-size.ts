import { useEffect, useState } from 'react'
import { useStdout } from 'ink'

/** The terminal's size, kept current on resize (80×24 when the output is not a terminal). */
export function useTerminalSize(): { width: number; height: number } {
  const { stdout } = useStdout()
  const read = () => ({ width: stdout.columns || 80, height: stdout.rows || 24 })
  const [size, setSize] = useState(read)
  useEffect(() => {
    const resize = () => setSize(read())
    stdout.on('resize', resize)
    return () => {
      stdout.off('resize', resize)
    }
  })
  return size
}
