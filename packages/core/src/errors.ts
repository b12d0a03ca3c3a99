/**
 * Domain errors. The HTTP layer maps them to status codes; the core never knows HTTP.
 */
export class DomainError extends Error {
  override name = 'DomainError'
}

/** The request is well-formed JSON but asks for something invalid. */
export class InvalidRequest extends DomainError {
  override name = 'InvalidRequest'
}

export class NotFound extends DomainError {
  override name = 'NotFound'
}

/** A valid request the current state forbids (for example archiving a task target). */
export class Refused extends DomainError {
  override name = 'Refused'
}

/** Retryable: the daemon is still restoring its state. */
export class NotReady extends DomainError {
  override name = 'NotReady'
  constructor() {
    super('the daemon is starting (restoring sessions); retry shortly')
  }
}

/** The write reached durable storage before a follow-up step failed: never retry it. */
export class MutationCommitted extends DomainError {
  override name = 'MutationCommitted'
}

/** A state file on disk cannot be used; it is reported and never overwritten. */
export class CorruptFile extends DomainError {
  override name = 'CorruptFile'
}
