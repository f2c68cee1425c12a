"""Adapters that publish what an agent framework does to a toolview session, from the
framework's own hooks: ``claude_agent_sdk`` (Claude Agent SDK hooks) and ``openai_agents``
(OpenAI Agents SDK run hooks). Each imports its framework only when used."""
