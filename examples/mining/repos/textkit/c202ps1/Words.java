package org.example.textkit;

public final class Words {

    public static int count(String line) {
        String[] words = line.trim().split(" +");
        return words.length;
    }
}
