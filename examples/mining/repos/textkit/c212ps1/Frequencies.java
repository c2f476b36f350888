package org.example.textkit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class Frequencies {

    public static Map<String, Integer> of(List<String> words) {
        Map<String, Integer> counts = new HashMap<>();
        for (String word : words) {
            if (counts.get(word) == null) {
                counts.put(word, 1);
            } else {
                counts.put(word, counts.get(word) + 1);
            }
        }
        return counts;
    }
}
