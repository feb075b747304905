package dev.mcpsupervisor.upstream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BoundedLineReaderTest {

  private static BoundedLineReader reader(String text, int maxLineBytes) {
    return new BoundedLineReader(
        new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), maxLineBytes);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void splitsOnLineFeedAndDropsCarriageReturn() throws IOException {
    BoundedLineReader lines = reader("one\r\ntwo\n\nthree", 100);
    assertArrayEquals(utf8("one"), lines.readLine());
    assertArrayEquals(utf8("two"), lines.readLine());
    assertArrayEquals(utf8(""), lines.readLine());
    assertArrayEquals(utf8("three"), lines.readLine(), "an unterminated last line still counts");
    assertNull(lines.readLine());
  }

  @Test
  void overlongLineIsReportedOnceAndReadingGoesOn() throws IOException {
    BoundedLineReader lines = reader("x".repeat(50) + "\nok\n", 10);
    assertSame(BoundedLineReader.OVERSIZED, lines.readLine());
    assertArrayEquals(utf8("ok"), lines.readLine());
    assertNull(lines.readLine());
  }

  @Test
  void linesSpanningManyReadsAreWhole() throws IOException {
    String longLine = "é".repeat(100_000);
    // hands out 7 bytes per read, splitting multi-byte characters and terminators
    InputStream trickle =
        new ByteArrayInputStream(utf8(longLine + "\r\nend\n")) {
          @Override
          public synchronized int read(byte[] buffer, int offset, int length) {
            return super.read(buffer, offset, Math.min(length, 7));
          }
        };
    BoundedLineReader lines = new BoundedLineReader(trickle, 1_000_000);
    assertArrayEquals(utf8(longLine), lines.readLine());
    assertArrayEquals(utf8("end"), lines.readLine());
    assertNull(lines.readLine());
  }
}
