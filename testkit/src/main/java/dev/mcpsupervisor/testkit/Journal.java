package dev.mcpsupervisor.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scripted server saw and did, one JSON object a line in a file that outlives its processes:
 * the test reads it, and a restarted server counts its calls from it. Each entry has a {@code
 * kind}: {@code start} (a process or server started, with its {@code pid}), {@code received} (a
 * message a client sent, as {@code message}), {@code clientAnswer} (what a client answered a server
 * request with: {@code method}, {@code answer}), {@code refused} (an initialize refused). One line
 * is one write to a file open for appending, so entries of two processes never mix.
 */
final class Journal {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private final Path file;
  // opened once: a server journals every message it receives, an open and close each is slow
  private FileChannel appending;

  Journal(Path file) {
    this.file = file;
  }

  static Journal create() {
    try {
      Path file = Files.createTempFile("scripted-server-", ".jsonl");
      file.toFile().deleteOnExit();
      return new Journal(file);
    } catch (IOException e) {
      throw new UncheckedIOException("could not create a scripted server's journal", e);
    }
  }

  Path file() {
    return file;
  }

  static ObjectNode entry(String kind) {
    ObjectNode entry = MAPPER.createObjectNode();
    entry.put("kind", kind);
    return entry;
  }

  synchronized void append(ObjectNode entry) {
    try {
      if (appending == null) {
        appending = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
      ByteBuffer line = ByteBuffer.wrap((entry + "\n").getBytes(StandardCharsets.UTF_8));
      while (line.hasRemaining()) {
        appending.write(line);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + file, e);
    }
  }

  /** Every complete entry so far, in order. */
  List<JsonNode> entries() {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + file, e);
    }
    List<JsonNode> entries = new ArrayList<>();
    for (String line : lines) {
      try {
        entries.add(MAPPER.readTree(line));
      } catch (IOException e) {
        // a line being written: not an entry yet
      }
    }
    return entries;
  }

  /** The entries of one kind, in order. */
  List<JsonNode> entries(String kind) {
    return entries().stream().filter(entry -> kind.equals(entry.path("kind").asText())).toList();
  }

  synchronized void delete() {
    try {
      if (appending != null) {
        appending.close();
      }
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a temporary file: deleteOnExit takes it
    }
  }
}
