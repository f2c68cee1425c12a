// A fleet inbox with no chat framework: `useToolviewSessions` follows every session the token may
// read over gRPC-Web (a fleet watch that reconnects by itself) and `ToolviewInbox` draws them —
// waiting on you first, with the prompt's buttons, then running, failed, idle and ended — with the
// same rows as the viewer's home page. Open it as inbox.html?server=http://127.0.0.1:50051 (the
// server started with --cors-origin naming this page's origin).
import { answerPermission } from "@toolview/client"; // toolview
import { ToolviewInbox, useToolviewSessions } from "@toolview/react"; // toolview
import "@toolview/react/styles.css"; // toolview
import { createRoot } from "react-dom/client";

const server = new URLSearchParams(location.search).get("server") ?? "";
// An answer names its surface, as the viewer's do: `someone via inbox`.
const onAnswer = (session: string, request: string, option: string) =>
  answerPermission(server, session, request, option, { via: "inbox" }); // toolview

function App() {
  const { sessions, state } = useToolviewSessions(server); // toolview
  return (
    <main data-state={state}>
      <ToolviewInbox sessions={sessions} onAnswer={onAnswer} />
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
