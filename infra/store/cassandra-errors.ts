// Errors of the Cassandra store. A store that cannot reach enough replicas answers with
// StoreUnavailableError, which the service turns into 503 ("try again"), never a crash.
import { errors, types } from 'cassandra-driver';
import { StoreUnavailableError } from '../../actors/ports/store';

// Cassandra (or enough of its replicas) could not be reached, or did not answer in time:
// the port's StoreUnavailableError. The outcome of a write that failed so is unknown.
export { StoreUnavailableError };

/** Server answers that mean "not now" rather than "never": too few replicas, timeouts, overload, a node still starting. */
const UNAVAILABLE_CODES = new Set<number>([
  types.responseErrorCodes.unavailableException,
  types.responseErrorCodes.overloaded,
  types.responseErrorCodes.isBootstrapping,
  types.responseErrorCodes.truncateError,
  types.responseErrorCodes.writeTimeout,
  types.responseErrorCodes.readTimeout,
  types.responseErrorCodes.readFailure,
  types.responseErrorCodes.writeFailure,
]);

/** True when the driver error means Cassandra is out of reach for now. */
export function isUnavailable(e: unknown): boolean {
  if (e instanceof StoreUnavailableError) return true;
  if (e instanceof errors.NoHostAvailableError || e instanceof errors.OperationTimedOutError || e instanceof errors.BusyConnectionError) return true;
  if (e instanceof errors.ResponseError) return UNAVAILABLE_CODES.has(e.code);
  // A connection that closed under a request ("Socket was closed") is a plain DriverError;
  // its subclasses (argument, authentication, internal errors) are not about reachability.
  if (e instanceof Error && Object.getPrototypeOf(e) === errors.DriverError.prototype) return true;
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code);
}

/** Turns a driver error into StoreUnavailableError where it means "unreachable"; other errors pass unchanged. */
export function storeError(e: unknown, what: string): unknown {
  if (e instanceof StoreUnavailableError || !isUnavailable(e)) return e;
  const reason = (e as Error)?.message ?? String(e);
  return new StoreUnavailableError(`Cassandra is unavailable (${what}): ${reason}`, e);
}
