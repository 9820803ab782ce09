FROM python:3.11-slim-bookworm
WORKDIR /app
COPY . /app
RUN DAFNY_SPEC_SCORE_EXTRAS=action bash scripts/setup.sh
ENTRYPOINT ["python3", "/app/entrypoint.py"]
