import { createContext, useContext } from 'react'

/** Whether the daemon runs on this machine (its tmux is here); false for one reached with --daemon-url. */
export const LocalDaemon = createContext(true)

export const useLocalDaemon = (): boolean => useContext(LocalDaemon)
