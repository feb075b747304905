package dev.mcpsupervisor.protocol.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class EditDistanceTest {

  @Test
  void countsInsertionsDeletionsAndSubstitutions() {
    assertEquals(0, EditDistance.between("--port", "--port"));
    assertEquals(1, EditDistance.between("comand", "command"), "an insertion");
    assertEquals(1, EditDistance.between("commands", "command"), "a deletion");
    assertEquals(2, EditDistance.between("--conf", "--config"));
    assertEquals(2, EditDistance.between("--prot", "--port"), "a swap is two edits");
    assertEquals(4, EditDistance.between("", "args"));
  }
}
