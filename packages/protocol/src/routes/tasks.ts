import * as t from '../schemas/tasks.js'
import { rpc } from './define.js'

export const taskRoutes = [
  rpc(
    'ListOnComplete',
    'tasks',
    'Completion policies for sessions a task spawns, least destructive first; the first is the default',
    t.ListOnCompleteRequest,
    t.ListOnCompleteResponse,
  ),
  rpc('ListTasks', 'tasks', 'Every task across all repositories, with schedule health', t.ListTasksRequest, t.ListTasksResponse),
  rpc('AddTask', 'tasks', 'Validate and append a task, then re-arm the scheduler', t.AddTaskRequest, t.AddTaskResponse, { required: ['task'] }),
  rpc(
    'UpdateTask',
    'tasks',
    'Patch the fields present in update onto the stored task; returns the merged task',
    t.UpdateTaskRequest,
    t.UpdateTaskResponse,
    { required: ['id', 'update'] },
  ),
  rpc('RemoveTask', 'tasks', 'Remove a task by id (its watcher stops first)', t.RemoveTaskRequest, t.RemoveTaskResponse, { required: ['id'] }),
  rpc(
    'RestartTask',
    'tasks',
    'Stop an enabled watch task and start exactly one replacement once the old one is gone',
    t.RestartTaskRequest,
    t.RestartTaskResponse,
    { required: ['id'] },
  ),
  rpc('TriggerTask', 'tasks', 'Fire an enabled cron task now through the scheduler path', t.TriggerTaskRequest, t.TriggerTaskResponse, { required: ['id'] }),
] as const
