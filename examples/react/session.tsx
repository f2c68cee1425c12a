// A page with no chat framework: `useToolviewSession` follows a session over gRPC-Web (the session
// so far, then live, resuming after the last card shown when the server restarts) and
// `ToolviewItems` draws it — cards, messages, prompts, turns, a subagent's calls in its card.
// Open it as session.html?server=http://127.0.0.1:50051&session=demo (the server started with
// --cors-origin naming this page's origin).
import { permissionAnswerer, ToolviewItems, useToolviewSession } from "@toolview/react"; // toolview
import "@toolview/react/styles.css"; // toolview
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);
const server = query.get("server") ?? "";
const session = query.get("session") ?? "demo";
const onAnswer = permissionAnswerer(server, session); // toolview

function App() {
  const { items, childrenOf, state } = useToolviewSession(server, session); // toolview
  return (
    <main data-state={state}>
      <ToolviewItems items={items} childrenOf={childrenOf} onAnswer={onAnswer} />
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
