import { createBrowserClient, type ResponseOf } from '@svc/protocol/browser'

/** The daemon that served this page: same origin, logged in by cookie. */
export const api = createBrowserClient(new URL(window.location.href))

export type Session = ResponseOf<'Snapshot'>['instances'][number]
export type Task = ResponseOf<'ListTasks'>['tasks'][number]
export type Project = ResponseOf<'ListProjects'>['projects'][number]
