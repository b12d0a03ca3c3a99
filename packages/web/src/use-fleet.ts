import { useSyncExternalStore } from 'react'
import { fleetStore } from './fleet-store'

export function useFleet() {
  return useSyncExternalStore(fleetStore.subscribe, fleetStore.snapshot)
}
