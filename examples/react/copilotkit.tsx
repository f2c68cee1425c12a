// A CopilotKit chat that shows a toolview session: CopilotKit's own AG-UI agent reads the session
// from toolview's /ag-ui, and @toolview/react draws each `toolview.card` activity message.
// Open it as copilotkit.html?server=http://127.0.0.1:50051&session=demo (the server started with
// --cors-origin naming this page's origin).
import { CopilotChat, CopilotKitProvider, HttpAgent } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { toolviewActivityRenderers } from "@toolview/react"; // toolview
import "@toolview/react/styles.css"; // toolview
import { useEffect } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);
const session = query.get("session") ?? "demo";
const agent = new HttpAgent({ url: `${query.get("server")}/ag-ui`, threadId: session }); // toolview
const renderers = toolviewActivityRenderers(); // toolview

function App() {
  // The session so far, then live: one long run (toolview's cards need no prompt).
  useEffect(() => {
    agent.runAgent({ forwardedProps: { toolview: { capabilities: { terminal: true, diff: true, read: true, search: true, web: true } } } }); // toolview
  }, []);
  return (
    <CopilotKitProvider selfManagedAgents={{ default: agent }} renderActivityMessages={renderers}>
      <CopilotChat threadId={session} />
    </CopilotKitProvider>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
