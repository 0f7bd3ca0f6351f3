// @cardroom/client: a client for cardroom's gateway over connect-es. See README.md.
export { CardroomClient, TicketCancelledError, type ClientOptions, type DeviceCredential, type NewTable, type Session, type Ticket } from "./client.js";
export { TableHandle, type ActOptions, type Choices, type Update, type WatchOptions } from "./table.js";
export { browserStorage, memoryStorage, type Storage } from "./storage.js";
export { defaultBackoff, isConnectionLost, isRetryable, isStale, newId, sleep, violationCode, type Backoff } from "./retry.js";
export { registry } from "./registry.js";
export { GatewayService } from "./gen/cardroom/gateway/v1/gateway_pb.js";
