// zod (under @modelcontextprotocol/ext-apps' schemas) probes whether `new Function` works when
// it builds an object schema, and a host's policy without 'unsafe-eval' reports that probe as a
// violation though zod catches it. Under `jitless` it neither probes nor compiles: imported first,
// before the bridge builds its schemas.
import { config } from "zod";

config({ jitless: true });
