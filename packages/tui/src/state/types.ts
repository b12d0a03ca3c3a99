import type { ResponseOf } from '@svc/protocol'

export type Session = ResponseOf<'Snapshot'>['instances'][number]
export type Task = ResponseOf<'ListTasks'>['tasks'][number]
export type Project = ResponseOf<'ListProjects'>['projects'][number]
