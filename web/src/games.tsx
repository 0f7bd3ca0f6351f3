// Every game's table, one file each under games/; this module gathers them (and what they share).
export * from "./games/common";
export { SapotagemPane } from "./games/sapotagem";
export { SponsioPane } from "./games/sponsio";
