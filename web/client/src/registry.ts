// Every message a table's Any fields may carry: the gateway's, the events envelope and the four games.
import { createRegistry } from "@bufbuild/protobuf";
import { file_cardroom_gateway_v1_gateway } from "./gen/cardroom/gateway/v1/gateway_pb.js";
import { file_cardroom_events_v1_events } from "./gen/cardroom/events/v1/events_pb.js";
import { file_cardroom_game_v1_game } from "./gen/cardroom/game/v1/game_pb.js";
import { file_cardroom_sapotagem_v1_sapotagem } from "./gen/cardroom/sapotagem/v1/sapotagem_pb.js";
import { file_cardroom_sponsio_v1_sponsio } from "./gen/cardroom/sponsio/v1/sponsio_pb.js";
import { file_cardroom_saboteur_v1_saboteur } from "./gen/cardroom/saboteur/v1/saboteur_pb.js";
import { file_cardroom_sabaisabai_v1_sabaisabai } from "./gen/cardroom/sabaisabai/v1/sabaisabai_pb.js";

/** registry resolves every message of cardroom's public API and its four games (for anyUnpack, toJson). */
export const registry = createRegistry(
  file_cardroom_gateway_v1_gateway,
  file_cardroom_events_v1_events,
  file_cardroom_game_v1_game,
  file_cardroom_sapotagem_v1_sapotagem,
  file_cardroom_sponsio_v1_sponsio,
  file_cardroom_saboteur_v1_saboteur,
  file_cardroom_sabaisabai_v1_sabaisabai,
);
